/**
 * The contract between the conversation core (src/) and a surface adapter (adapters/slack,
 * adapters/discord, adapters/console). Adapters own transport; src/render owns how a turn looks;
 * the core owns commands, settings, history and the turn. This file imports types only and nothing
 * from src/core, so adapters and the renderer depend on the contract, never on the core. Identifiers are opaque strings built and parsed only
 * by their adapter (e.g. "slack:T1:C123" / "slack:T1:C123:1712345678.0001").
 */
import type { UserText } from './i18n/phrase.js';
import type { MessageContextSource } from './context/types.js';
import type { ModelConfig } from './llm/types.js';
import type { PlanProposal } from './modes/plan/plan-types.js';
import type { TurnView } from './render/view.js';
import type { ToolApprovalRequest } from './tools/types.js';
import type { WorkspaceSearch } from './search/workspace-search.js';

import type { Locale } from './i18n/locale.js';

export type { Locale };
export type Mode = 'chat' | 'agent' | 'plan';

/** Settings belong to a channel (a DM is a channel). Stored in the `settings` Keyv namespace. */
export interface ChannelSettings {
  mode: Mode;
  /** Chat mode's search switch. */
  search: boolean;
  /** The search switch as it was when the channel left chat mode; restored on return (default off). */
  savedSearch?: boolean;
  /** Function-call model (and the chat model). */
  toolModel: ModelConfig;
  /** Answer model; null means "same as the function-call model". */
  answerModel: ModelConfig | null;
  /** Discord: open a thread on a mention (default) or reply in place. */
  replyInThread: boolean;
  /**
   * `/tools enable|disable`: "+pattern" / "-pattern" in the order given; the last rule that matches a
   * tool decides. Only narrows what AGENT_TOOLS allows. Absent on settings stored before it existed.
   */
  toolRules?: string[];
  /**
   * `/instructions`: the channel's operator instructions (cleaned and capped), which replace the
   * SCOUT_INSTRUCTIONS default in every mode's system prompt. Absent: the default, if any.
   */
  instructions?: string;
}

/** Where and by whom a slash command (or a settings panel change) was given. */
export interface CommandContext {
  channelId: string;
  conversationId?: string;
  userId: string;
  /** As on IncomingMessage: for the access lists. */
  roles?: readonly string[];
  direct?: boolean;
  locale?: Locale;
}

export interface IncomingMessage {
  /** Settings scope: a channel (a DM is a channel). */
  channelId: string;
  /** History scope: a thread, a DM thread, a console run. */
  conversationId: string;
  /** Platform message id; the core deduplicates on it (Slack's app_mention + message double delivery). */
  messageId: string;
  userId: string;
  /** Discord: the member's role ids (a server message), for ALLOWED_ROLES. */
  roles?: readonly string[];
  /** Discord: a direct message (no roles: ALLOWED_ROLES then needs the user in ALLOWED_USERS). */
  direct?: boolean;
  userName?: string;
  channelName?: string;
  /** Message text with the bot mention already stripped. */
  text: string;
  /** The user's locale where the platform tells it; else BOT_LOCALE. */
  locale?: Locale;
  /** Earlier thread/reply-chain messages and attachments the core may read (src/context). */
  context?: MessageContextSource;
  /**
   * The workspace searched as the asker (issue 59), limited by the adapter to places every reader of
   * the answer may see; absent where the surface cannot search or WORKSPACE_SEARCH is off.
   */
  workspaceSearch?: WorkspaceSearch;
}

/** Where a turn's output goes. One sink per turn, created by the adapter. */
export interface TurnSink {
  /**
   * Called with the (mutated) view after every event. Must return at once: the adapter throttles
   * its edits (see src/render/throttled-editor.ts) and reads the view when it sends.
   */
  update(view: TurnView): void;
  /** Called once when the turn ends (answer, error or cancel); resolves when the final edit landed. */
  done(view: TurnView): Promise<void>;
  /**
   * A plain reply that is not a turn (command output, short help, a friendly refusal), said in the
   * sink's locale. `isError`:
   * the message could not be handled (storage down…), for surfaces that report an outcome (`--once`).
   */
  reply(text: UserText, options?: { isError?: boolean }): Promise<void>;
  /**
   * Optional: a reply for the asker alone (a usage limit, `/usage`) where `reply` would be public
   * (Discord: a DM). Surfaces whose `reply` is already private (Slack, the terminal) leave it out.
   */
  replyPrivately?(text: UserText, options?: { isError?: boolean }): Promise<void>;
  /**
   * Optional: show a plan with Run / Cancel controls and resolve with the choice. Surfaces without it
   * run plans without asking (console `--once`). Should resolve false when `signal` aborts.
   */
  confirmPlan?(plan: PlanProposal, signal: AbortSignal): Promise<boolean>;
  /**
   * Optional: ask the asker to approve a tool call that may change something (an MCP tool without
   * `readOnlyHint`), with Approve / Deny controls only the asker or an admin may press. Resolves with
   * the choice; should resolve false when `signal` aborts. Surfaces without it refuse such calls.
   */
  confirmTool?(request: ToolApprovalRequest, signal: AbortSignal): Promise<boolean>;
}

/** A reply to a command: always meant for the one user who sent it (ephemeral where possible). */
export interface CommandReply {
  /** Said by the adapter in the locale it passed in the command's context (else BOT_LOCALE). */
  text: UserText;
  /** True when the command changed settings or state (adapters may refresh a settings panel). */
  changed: boolean;
  /**
   * A picture that goes with the text (`/usage`'s chart), drawn only by surfaces that attach images;
   * its `alt` is said like `text`.
   */
  image?: () => Promise<{ name: string; alt: UserText; data: Buffer }>;
}

/** What an adapter may ask of the core. Implemented by `Scout` in src/core/scout.ts. */
export interface ScoutCore {
  /**
   * Handles one user message end to end: a text command (`/mode agent`, or `mode agent` after a
   * mention), an empty message (short help) or a turn. Never throws: errors become a friendly
   * message on the sink. Resolves when the turn is finished.
   */
  handleMessage(message: IncomingMessage, sink: TurnSink): Promise<void>;
  /** Runs a slash command by name (`mode`, `config`, `model`, `search`, `help`, `reset`). */
  runCommand(name: string, args: string, context: CommandContext): Promise<CommandReply>;
  /** The Stop button: cancels the running turn of a conversation. Returns false when none runs. */
  cancel(conversationId: string): boolean;
  /**
   * True the first time a key is seen within `ttlMs` (atomic across instances with Redis).
   * Adapters use it for platform-level dedupe (Slack `event_id`).
   */
  firstDelivery(key: string, ttlMs?: number): Promise<boolean>;
  /** Settings of a channel, for settings panels (Slack App Home). */
  getSettings(channelId: string): Promise<ChannelSettings>;
  /**
   * True when a daily usage limit would refuse this asker's turn now (nothing is taken or counted;
   * `handleMessage` still decides). For adapters that make something public before the core sees
   * the message: Discord does not open a thread for a turn that will be refused.
   */
  overDailyLimit?(asker: { userId: string; channelId: string }): Promise<boolean>;
  readonly locale: Locale;
}

export interface Surface {
  readonly name: 'slack' | 'discord' | 'web' | 'console';
  /** Connects and starts taking messages. */
  start(): Promise<void>;
  /** Stops taking new messages (SIGTERM); running turns are finished by the core. */
  stop(): Promise<void>;
}
