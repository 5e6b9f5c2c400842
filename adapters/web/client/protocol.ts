/**
 * The wire shapes of PROTOCOL.md: the one definition the page and the server share. Types only and
 * no import, so the page is typechecked with the DOM library alone; the server (../wire.ts,
 * ../settings-form.ts) imports them, and assigning the core's view to them checks at compile time
 * that the two still agree (a new step kind in src/render/events.ts fails the build until added here).
 */
export type StepKind =
  | 'thinking'
  | 'search'
  | 'search-results'
  | 'tool'
  | 'evaluation'
  | 'model-switch'
  | 'notice'
  | 'warning'
  | 'plan'
  | 'plan-step';

export type StepStatus = 'pending' | 'running' | 'done' | 'failed' | 'skipped' | 'info';

export interface Step {
  id: string;
  kind: StepKind;
  title: string;
  body: string;
  status: StepStatus;
  collapsed: boolean;
}

export interface Source {
  n: number;
  title: string;
  url: string;
  snippet?: string;
  site?: string;
  published?: string;
}

export interface Confirm {
  id: string;
  kind: 'plan' | 'tool';
  text: string;
  state: 'waiting' | 'accepted' | 'declined';
}

export interface Turn {
  id: string;
  steps: Step[];
  answer: string;
  answerFinal: boolean;
  sources: Source[];
  phase?: string;
  status: string | null;
  footer?: string;
  error?: string;
  notSaved?: boolean;
  done: boolean;
  cancelled: boolean;
  confirm?: Confirm;
}

export type Entry =
  | { kind: 'user'; text: string; files?: string[]; at: number }
  | { kind: 'reply'; text: string; error: boolean; at: number }
  | { kind: 'turn'; turn: Turn; at: number };

export interface TurnPatch {
  turnId: string;
  steps?: Step[];
  append?: string;
  /** The answer's length the append goes after (an instance relaying the turn checks it). */
  at?: number;
  answer?: string;
  answerFinal?: boolean;
  sources?: Source[];
  phase?: string;
  status?: string | null;
  footer?: string;
  error?: string;
  notSaved?: boolean;
  done?: boolean;
  cancelled?: boolean;
  confirm?: Confirm;
}

export interface Session {
  user: { id: string; name: string };
  csrf: string;
  locale: 'en' | 'zh';
  auth: 'none' | 'password' | 'header' | 'oidc';
  models: string[];
  starters: string[];
  maxUploadBytes: number;
}

export interface ConversationSummary {
  id: string;
  title: string;
  updatedAt: number;
}

export interface Conversation {
  id: string;
  title: string;
  entries: Entry[];
  turn: Turn | null;
}

export interface ModelSetting {
  model: string;
  temperature: number;
  maxTokens?: number;
  topP?: number;
  thinking?: number;
}

export interface Settings {
  mode: 'chat' | 'agent' | 'plan';
  search: boolean;
  toolModel: ModelSetting;
  answerModel: ModelSetting | null;
}

export interface Upload {
  id: string;
  name: string;
  size: number;
}

/** Folds a patch into the turn it names (mutates: one turn object per turn, patched per token). */
export function applyPatch(turn: Turn, patch: TurnPatch): void {
  for (const step of patch.steps ?? []) {
    const i = turn.steps.findIndex((s) => s.id === step.id);
    if (i >= 0) turn.steps[i] = step;
    else turn.steps.push(step);
  }
  if (patch.answer !== undefined) turn.answer = patch.answer;
  if (patch.append !== undefined) turn.answer += patch.append;
  if (patch.answerFinal !== undefined) turn.answerFinal = patch.answerFinal;
  if (patch.sources !== undefined) turn.sources = patch.sources;
  if (patch.phase !== undefined) turn.phase = patch.phase;
  // `status: null` clears the line, so presence (not undefined-ness) is what counts.
  if ('status' in patch) turn.status = patch.status ?? null;
  if (patch.footer !== undefined) turn.footer = patch.footer;
  if (patch.error !== undefined) turn.error = patch.error;
  if (patch.notSaved !== undefined) turn.notSaved = patch.notSaved;
  if (patch.done !== undefined) turn.done = patch.done;
  if (patch.cancelled !== undefined) turn.cancelled = patch.cancelled;
  if (patch.confirm !== undefined) turn.confirm = patch.confirm;
}
