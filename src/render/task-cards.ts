/**
 * A native answer stream's task cards (Slack AI streaming): one card per step of the turn, built by
 * the surface (`AnswerStream.task`). The turn renderer asks for the cards every frame; this file
 * keeps what each card was built from so a frame rebuilds only the steps that changed (or all of
 * them when the answer's sources did, which search cards show) — apart from the renderer, which only
 * needs the cards and whether any is new.
 */
import type { StepView, TurnView } from './view.js';

/** What a task card was built from (an unchanged step keeps its card). */
interface BuiltTask extends Pick<StepView, 'title' | 'body' | 'status' | 'kind'> {
  sources: TurnView['sources'];
  task: unknown;
}

export class TaskCards {
  readonly #build: (step: StepView, sources: TurnView['sources']) => unknown;
  #tasks: unknown[] = [];
  readonly #built = new WeakMap<StepView, BuiltTask>();

  constructor(build: (step: StepView, sources: TurnView['sources']) => unknown) {
    this.#build = build;
  }

  /** The cards as last updated, in step order. */
  get list(): unknown[] {
    return this.#tasks;
  }

  /** The cards of the view's steps; true when any card is new. */
  update(view: TurnView): boolean {
    let changed = view.steps.length !== this.#tasks.length;
    const tasks = view.steps.map((step) => {
      const built = this.#built.get(step);
      if (
        built &&
        built.title === step.title &&
        built.body === step.body &&
        built.status === step.status &&
        built.kind === step.kind &&
        built.sources === view.sources
      )
        return built.task;
      changed = true;
      const task = this.#build(step, view.sources);
      const { title, body, status, kind } = step;
      this.#built.set(step, { title, body, status, kind, sources: view.sources, task });
      return task;
    });
    if (changed) this.#tasks = tasks;
    return changed;
  }
}
