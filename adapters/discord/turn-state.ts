/**
 * Where a turn's steps live for the Show/Hide button. While the turn runs, the sink in this process
 * re-renders (`ActiveTurns`); once it ended, the view is in the store's `meta` namespace
 * (`StepsArchive`), so the button keeps working after a restart or on another shard.
 */
import type Keyv from 'keyv';
import type { TurnView } from '../../src/render/view.js';
import type { Locale } from '../../src/surface.js';

/** Finished turns' steps stay expandable for a week; older buttons answer "no longer available". */
export const STEPS_ARCHIVE_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export interface ActiveTurn {
  /** The conversation the turn answers in, and the user whose message started it (Stop is theirs). */
  readonly conversationId?: string;
  readonly askerId?: string;
  /** Flips the details of the running turn's steps message (the sink re-renders it). */
  toggleDetails(): void;
  /** Resolves a pending plan confirmation; false when none is pending. */
  resolvePlan(run: boolean): boolean;
  /** Resolves a pending tool approval; false when none is pending. */
  resolveApproval(approve: boolean): boolean;
}

export class ActiveTurns {
  private readonly turns = new Map<string, ActiveTurn>();
  add(turnId: string, turn: ActiveTurn): void {
    this.turns.set(turnId, turn);
  }
  remove(turnId: string): void {
    this.turns.delete(turnId);
  }
  get(turnId: string): ActiveTurn | undefined {
    return this.turns.get(turnId);
  }
  /** The asker of the turn running in a conversation (one at a time: the conversation lock). */
  askerOf(conversationId: string): string | undefined {
    for (const turn of this.turns.values()) if (turn.conversationId === conversationId) return turn.askerId;
    return undefined;
  }
}

export interface ArchivedSteps {
  view: Pick<TurnView, 'steps' | 'phase' | 'status' | 'done'> & Partial<TurnView>;
  expanded: boolean;
  locale: Locale;
}

const key = (turnId: string) => `discord:steps:${turnId}`;

export class StepsArchive {
  constructor(private readonly meta: Keyv) {}
  async save(turnId: string, entry: ArchivedSteps): Promise<void> {
    await this.meta.set(key(turnId), entry, STEPS_ARCHIVE_TTL_MS);
  }
  async load(turnId: string): Promise<ArchivedSteps | undefined> {
    return (await this.meta.get(key(turnId))) ?? undefined;
  }
}
