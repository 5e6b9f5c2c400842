/** A console output that keeps what was written (a pipe: no TTY), for tests that read stdout. */
export function capturedOutput() {
  let text = '';
  return {
    write: (s: string) => {
      text += s;
      return true;
    },
    get text() {
      return text;
    },
  };
}
