/**
 * In-process memory of the Slack adapter: what each workspace supports (container blocks, native AI
 * streaming — learned from the first refusal and remembered), the last view of each steps message
 * for the Show/Hide details button, and the plans waiting for Run / Cancel.
 */
import { LRUCache } from 'lru-cache';
import type { TurnView } from '../../src/render/view.js';
import type { Locale } from '../../src/surface.js';

/** Steps messages whose details can still be toggled; older ones just stop toggling. */
const MAX_REMEMBERED_MESSAGES = 1_000;

export interface WorkspaceFlags {
  containers: boolean;
  streaming: boolean;
}

export interface StepsMessageState {
  channel: string;
  ts: string;
  view: TurnView;
  expanded: boolean;
  conversationId: string;
  locale: Locale;
}

export class SlackSurfaceState {
  readonly #workspaces = new Map<string, WorkspaceFlags>();
  readonly #messages = new LRUCache<string, StepsMessageState>({ max: MAX_REMEMBERED_MESSAGES });
  readonly #plans = new Map<string, (run: boolean) => void>();

  constructor(private readonly defaults: WorkspaceFlags) {}

  workspace(team: string): WorkspaceFlags {
    let flags = this.#workspaces.get(team);
    if (!flags) {
      flags = { ...this.defaults };
      this.#workspaces.set(team, flags);
    }
    return flags;
  }

  rememberSteps(state: StepsMessageState): void {
    this.#messages.set(`${state.channel}:${state.ts}`, state);
  }

  steps(channel: string, ts: string): StepsMessageState | undefined {
    return this.#messages.get(`${channel}:${ts}`);
  }

  /** Registers a plan waiting for its buttons; the returned function unregisters it. */
  waitForPlan(conversationId: string, resolve: (run: boolean) => void): () => void {
    this.#plans.set(conversationId, resolve);
    return () => {
      if (this.#plans.get(conversationId) === resolve) this.#plans.delete(conversationId);
    };
  }

  /** Resolves a waiting plan; false when none waits (an old button). */
  answerPlan(conversationId: string, run: boolean): boolean {
    const resolve = this.#plans.get(conversationId);
    if (!resolve) return false;
    this.#plans.delete(conversationId);
    resolve(run);
    return true;
  }
}
