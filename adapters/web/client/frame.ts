/**
 * Work coalesced to one run per animation frame: a streamed answer can get hundreds of tokens a
 * second, and re-rendering its Markdown for each would freeze the page. Last write wins.
 */
const pending = new Map<object, () => void>();
let scheduled = false;

function flush(): void {
  scheduled = false;
  const jobs = [...pending.values()];
  pending.clear();
  for (const job of jobs) job();
}

/** Runs `job` on the next frame; another schedule for the same key before then replaces it. */
export function onNextFrame(key: object, job: () => void): void {
  pending.set(key, job);
  if (!scheduled) {
    scheduled = true;
    // A hidden tab gets no frames: a timer keeps its transcript current for when it comes back.
    if (document.hidden) setTimeout(flush, 250);
    else requestAnimationFrame(flush);
  }
}
