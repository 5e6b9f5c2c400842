/**
 * The conversation core: every surface hands it messages and a sink; it decides between command,
 * short help and a turn, keeps per-conversation order, and runs the channel's mode.
 */
import { Budget, replyPrivately } from '../budget/budget.js';
import type { TurnMeter } from '../budget/turn-meter.js';
import type { Config } from '../config/env.js';
import { ContextCache } from '../context/context-cache.js';
import { readTurnContext, type TurnContextMessages } from '../context/turn-context.js';
import { CancelledError, isAbortError } from '../errors.js';
import { t } from '../i18n/translate.js';
import { toUserMessage } from '../i18n/user-message.js';
import type { ChatMessage, LlmClient, ModelConfig } from '../llm/types.js';
import type { Logger } from '../logger.js';
import { emitNotice } from '../modes/turn/emit-notice.js';
import type { ModeRunner, TurnContext } from '../modes/types.js';
import type { PromptLibrary } from '../prompts/prompt-library.js';
import type { TurnEvent } from '../render/events.js';
import { closeOpenSteps, emptyView, foldEvent } from '../render/view.js';
import type { SearchService } from '../search/types.js';
import { appendTurn } from '../store/conversation-store.js';
import { loadConversation } from '../store/conversation-summary.js';
import type { Lease, Stores } from '../store/types.js';
import type {
  CommandContext,
  CommandReply,
  IncomingMessage,
  Locale,
  Mode,
  ScoutCore,
  TurnSink,
} from '../surface.js';
import type { McpToolSource } from '../mcp/mcp-tools.js';
import type { ToolRegistry } from '../tools/types.js';
import { isChannelAllowed, isUserAllowed } from './allowed-channels.js';
import { channelTools } from './channel-tools.js';
import { modeDescription, modeName, runCommand } from './command-handlers.js';
import { parseCommandText } from './commands.js';
import { fitWithMemory } from './conversation-memory.js';
import { effectiveInstructions } from './instructions.js';
import { instructionsTokens, withInstructions } from '../prompts/operator-instructions.js';
import { warnIfNearContextWindow } from '../llm/tokens.js';
import { withDeadline } from '../llm/turn-deadline.js';
import type { ChannelSettings } from './settings.js';
import { SettingsService } from './settings-service.js';

/** A message longer than this is cut (with a notice): a 100 KB paste must not blow the context window. */
export const MAX_INPUT_CHARS = 16_000;
/** Slack retries for up to ~5 minutes; remembering message ids for 10 covers every redelivery. */
const MESSAGE_DEDUPE_TTL_MS = 10 * 60_000;
/** Room kept for the answer in the context window when no max_tokens is set (the server decides). */
const RESERVED_ANSWER_TOKENS = 2_000;
/** `/reset` waits at most this long for a running turn to let go of its conversation. */
const RESET_LOCK_WAIT_MS = 15_000;
/**
 * A turn's conversation lease: renewed every third of it while the turn runs, so a holder that dies
 * (kill -9, lost network) frees its conversation within this long instead of blocking the next turn.
 */
const TURN_LOCK_TTL_MS = 5_000;
/** Waiting longer than this for the conversation's lock shows "waiting for the previous answer…". */
const LOCK_WAIT_NOTICE_MS = 500;
/**
 * A plan nobody runs or cancels is declined after this: the turn holds the conversation's lock while
 * it waits, and later messages of the conversation queue behind it (for at most the lock wait).
 */
export const PLAN_CONFIRM_TIMEOUT_MS = 5 * 60_000;
/** A tool call waiting for Approve / Deny is denied after this (the turn's own limit may end it first). */
export const TOOL_CONFIRM_TIMEOUT_MS = 5 * 60_000;

export interface TurnObserver {
  onTurnStart?(info: { mode: Mode; conversationId: string }): void;
  onTurnEnd?(info: { mode: Mode; outcome: 'ok' | 'error' | 'cancelled'; ms: number; error?: unknown }): void;
  /**
   * Runs a turn inside the observer (traces: the turn's span is the parent of everything the turn
   * does); it may hand the turn a watched message and sink.
   */
  aroundTurn?(
    message: IncomingMessage,
    sink: TurnSink,
    run: (message: IncomingMessage, sink: TurnSink) => Promise<void>,
  ): Promise<void>;
}

export interface ScoutDeps {
  config: Config;
  logger: Logger;
  stores: Stores;
  search: SearchService;
  tools: ToolRegistry;
  prompts: PromptLibrary;
  /** Builds (or returns a cached) client for a model choice. */
  llm: (model: ModelConfig) => LlmClient;
  modes: Record<Mode, ModeRunner>;
  observer?: TurnObserver;
  /** How long a plan waits for Run / Cancel (default PLAN_CONFIRM_TIMEOUT_MS; tests shrink it). */
  planConfirmMs?: number;
  /** The MCP servers, for `/tools` and `/config` (their tools reach turns through `tools`). */
  mcp?: McpToolSource;
}

export class Scout implements ScoutCore {
  readonly locale: Locale;
  readonly settings: SettingsService;
  /** The turn holding each conversation's lock (what Stop cancels). */
  private readonly running = new Map<string, AbortController>();
  /** Every turn from arrival to end, lock waiters included (what shutdown cancels past its grace). */
  private readonly turns = new Set<AbortController>();
  private readonly inFlight = new Set<Promise<void>>();
  /** Plans waiting for Run / Cancel, per conversation: a new message there declines the plan. */
  private readonly awaitingPlan = new Map<string, AbortController>();
  private accepting = true;
  /** What each conversation has already read of its thread (src/context). */
  private readonly contextCache: ContextCache;
  /** Usage limits and running-turn slots (src/budget). */
  private readonly budget: Budget;

  constructor(private readonly deps: ScoutDeps) {
    this.locale = deps.config.env.BOT_LOCALE;
    this.settings = new SettingsService(deps.stores, deps.config);
    this.contextCache = new ContextCache(deps.stores.meta, deps.config.env.SESSION_TTL);
    this.budget = new Budget(deps.config, deps.stores, deps.logger);
  }

  get stores(): Stores {
    return this.deps.stores;
  }

  getSettings(channelId: string): Promise<ChannelSettings> {
    return this.settings.get(channelId);
  }

  async firstDelivery(key: string, ttlMs = MESSAGE_DEDUPE_TTL_MS): Promise<boolean> {
    return this.deps.stores.dedupe.firstSeen(key, ttlMs);
  }

  cancel(conversationId: string): boolean {
    const controller = this.running.get(conversationId);
    if (!controller) return false;
    controller.abort(new CancelledError('stopped by user'));
    return true;
  }

  async runCommand(name: string, args: string, context: CommandContext): Promise<CommandReply> {
    const locale = context.locale ?? this.locale;
    if (!isChannelAllowed(this.deps.config, context.channelId)) {
      // Slash commands and settings panels reach here without a message: refuse, visibly.
      return { text: t(locale, 'error.channel-not-allowed'), changed: false };
    }
    // Commands are private (ephemeral, the panel): a refused user is told, once, without detail.
    if (!isUserAllowed(this.deps.config, context))
      return { text: t(locale, 'error.user-not-allowed'), changed: false };
    try {
      const conversationId = context.conversationId;
      if (conversationId && name.replace(/^\//, '').toLowerCase() === 'reset') {
        // A turn still running would write its answer back after the reset: stop it, and wait for
        // its lock (which also covers a turn running on another instance).
        this.cancel(conversationId);
        const lease = await this.deps.stores.locks.acquire(`conv:${conversationId}`, {
          ttlMs: TURN_LOCK_TTL_MS,
          waitMs: RESET_LOCK_WAIT_MS,
        });
        try {
          return await runCommand(this.commandDeps(), name, args, { ...context, locale });
        } finally {
          await lease.release();
        }
      }
      return await runCommand(this.commandDeps(), name, args, { ...context, locale });
    } catch (err) {
      this.deps.logger.error({ err, command: name }, 'command failed');
      return { text: toUserMessage(err, locale), changed: false };
    }
  }

  handleMessage(message: IncomingMessage, sink: TurnSink): Promise<void> {
    const work = this.handle(message, sink);
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work));
    return work;
  }

  /** Stops intake and waits (bounded) for running turns; cut-off turns are cancelled and say so. */
  async shutdown(graceMs: number): Promise<void> {
    this.accepting = false;
    const all = Promise.allSettled([...this.inFlight]);
    const timedOut = await Promise.race([
      all.then(() => false),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(true), graceMs).unref()),
    ]);
    if (timedOut) {
      // Turns still queued behind a conversation lock are cancelled too: they must not start a
      // model call while the store is about to close.
      for (const controller of this.turns) controller.abort(new CancelledError('shutting down'));
      await Promise.race([all, new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
    }
    // MCP servers (child processes, HTTP sessions) close once no turn can call them any more.
    await this.deps.tools.close?.();
  }

  private async handle(message: IncomingMessage, sink: TurnSink): Promise<void> {
    const locale = message.locale ?? this.locale;
    const log = this.deps.logger.child({ conversation: message.conversationId });
    try {
      if (!this.accepting) return;
      if (!isChannelAllowed(this.deps.config, message.channelId)) {
        log.info({ channel: message.channelId }, 'message from a channel not in ALLOWED_CHANNELS ignored');
        return;
      }
      // A refused user's messages are ignored silently: a reply in a channel would be public noise
      // (and tell a blocked user they are blocked); commands and buttons, which are private, say so.
      if (!isUserAllowed(this.deps.config, message)) {
        log.info({ user: message.userId }, 'message from a user the access lists refuse ignored');
        return;
      }
      if (!(await this.firstDelivery(`msg:${message.messageId}`))) {
        log.debug({ messageId: message.messageId }, 'duplicate delivery ignored');
        return;
      }
      let text = message.text.trim();
      // A mention with only files attached asks about the files, not for the short help.
      if (text === '' && message.context?.attachments.length) text = t(locale, 'context.files-only-question');
      if (text === '') {
        // The welcome names the channel's mode, as the seeds' greeting does.
        const { mode } = await this.settings.get(message.channelId);
        await sink.reply(
          t(locale, 'help.short', {
            mode: modeName(mode, locale),
            description: modeDescription(mode, locale),
          }),
        );
        return;
      }
      const command = parseCommandText(text);
      if (command) {
        const result = await this.runCommand(command.name, command.args, {
          channelId: message.channelId,
          conversationId: message.conversationId,
          userId: message.userId,
          locale,
        });
        // Someone's own spend is theirs alone: where a reply is public (Discord), it goes privately.
        await (command.name === 'usage' ? replyPrivately(sink, result.text) : sink.reply(result.text));
        return;
      }
      // A new question while a plan waits for Run / Cancel moves on: the plan is declined, so its
      // turn ends and frees the conversation instead of keeping this message queued behind it.
      this.awaitingPlan.get(message.conversationId)?.abort(new CancelledError('superseded'));
      // Over a usage limit (or at the most answers at once): one private message, no turn.
      const admission = await this.budget.admit(message, locale);
      if (admission.refusal) return await replyPrivately(sink, admission.refusal);
      try {
        const turn = (turnMessage: IncomingMessage, turnSink: TurnSink) =>
          this.runTurn(turnMessage, turnSink, locale, log, admission.meter);
        const observer = this.deps.observer;
        await (observer?.aroundTurn
          ? observer.aroundTurn({ ...message, text }, sink, turn)
          : turn({ ...message, text }, sink));
      } finally {
        await admission.finish();
      }
    } catch (err) {
      log.error({ err }, 'message handling failed');
      await sink
        .reply(toUserMessage(err, locale), { isError: true })
        .catch((replyErr) => log.error({ err: replyErr }, 'reply failed'));
    }
  }

  private async runTurn(
    message: IncomingMessage,
    sink: TurnSink,
    locale: Locale,
    log: Logger,
    meter: TurnMeter,
  ): Promise<void> {
    const controller = new AbortController();
    this.turns.add(controller);
    const view = emptyView();
    let ended = false;
    const emit = (event: TurnEvent) => {
      // A tool or stream still winding down after Stop or a time limit may emit late: the turn's
      // final view is already rendered, so late events must not change it or redraw it.
      if (ended) return;
      foldEvent(view, event);
      sink.update(view);
    };
    // Behind an earlier answer (or a dead holder's lease running out): say so instead of silence.
    let waited = false;
    const waitNotice = setTimeout(() => {
      waited = true;
      emit({ type: 'status', text: t(locale, 'notice.waiting') });
    }, LOCK_WAIT_NOTICE_MS);
    let lease: Lease;
    try {
      lease = await this.deps.stores.locks.acquire(`conv:${message.conversationId}`, {
        ttlMs: TURN_LOCK_TTL_MS,
        signal: controller.signal,
      });
    } catch (err) {
      this.turns.delete(controller);
      if (!waited) throw err;
      // The waiting notice is on screen: that same message ends with the reason.
      if (!isAbortError(err)) log.error({ err }, 'turn could not get its conversation lock');
      ended = true;
      Object.assign(view, { status: null, done: true, cancelled: isAbortError(err) });
      view.error = toUserMessage(err, locale);
      await sink.done(view).catch((doneErr) => log.error({ err: doneErr }, 'final render failed'));
      return;
    } finally {
      clearTimeout(waitNotice);
    }
    if (waited) emit({ type: 'status', text: null });
    this.running.set(message.conversationId, controller);
    const started = Date.now();
    // Chat has no time limit of its own: a rate-limit wait longer than the agent's limit fails fast.
    withDeadline(controller.signal, started + this.deps.config.env.AGENT_MAX_EXECUTION_TIME * 1000);
    let mode: Mode = 'chat';
    let outcome: 'ok' | 'error' | 'cancelled' = 'ok';
    let failure: unknown;
    try {
      const settings = await this.settings.get(message.channelId);
      mode = settings.mode;
      this.deps.observer?.onTurnStart?.({ mode, conversationId: message.conversationId });
      let question = message.text;
      if (question.length > MAX_INPUT_CHARS) {
        question = question.slice(0, MAX_INPUT_CHARS);
        emitNotice(
          emit,
          'notice-input-trimmed',
          t(locale, 'notice.input-trimmed', { chars: MAX_INPUT_CHARS }),
        );
      }
      const conversation = await loadConversation(this.deps.stores, message.conversationId);
      const stored = conversation.messages;
      const read: TurnContextMessages = message.context
        ? await readTurnContext({
            source: message.context,
            conversationId: message.conversationId,
            hasHistory: stored.length > 0,
            models: settings.answerModel ? [settings.toolModel, settings.answerModel] : [settings.toolModel],
            config: this.deps.config,
            cache: this.contextCache,
            locale,
            emit,
            signal: controller.signal,
            logger: log,
          })
        : { tokens: 0 };
      // The channel's operator instructions (or the default) close every system prompt.
      const instructions = effectiveInstructions(settings, this.deps.config);
      // Turns that no longer fit are folded into the conversation's summary (conversation-memory.ts).
      const window = await fitWithMemory({
        conversation,
        conversationId: message.conversationId,
        question,
        contextWindow: this.deps.config.env.LLM_CONTEXT_WINDOW,
        reserveTokens:
          (settings.toolModel.maxTokens ?? RESERVED_ANSWER_TOKENS) +
          2_000 +
          read.tokens +
          instructionsTokens(instructions),
        summariser: meter.wrapLlm(this.deps.llm(this.deps.config.summaryModel ?? settings.toolModel)),
        prompts: this.deps.prompts,
        stores: this.deps.stores,
        ttlMs: this.deps.config.env.SESSION_TTL,
        locale,
        emit,
        signal: controller.signal,
        logger: log,
      });
      if (window.notSaved) view.notSaved = true;
      warnIfNearContextWindow(window.tokens, this.deps.config.env.LLM_CONTEXT_WINDOW, log);
      const tool = meter.wrapLlm(this.deps.llm(settings.toolModel));
      const answer = settings.answerModel ? meter.wrapLlm(this.deps.llm(settings.answerModel)) : tool;
      const context: TurnContext = {
        message: { ...message, text: question },
        settings,
        // The thread and files Scout read go just before the question, as delimited data.
        history: read.forModel ? [...window.messages, read.forModel] : window.messages,
        locale,
        sessionKey: message.channelId,
        emit,
        signal: controller.signal,
        llm: { tool, answer },
        tools: meter.wrapTools(channelTools(this.deps.tools, settings.toolRules, question)),
        search: this.deps.search,
        prompts: withInstructions(this.deps.prompts, instructions),
        config: this.deps.config,
        logger: log,
      };
      if (sink.confirmPlan) {
        const confirm = sink.confirmPlan.bind(sink);
        const id = message.conversationId;
        context.confirmPlan = async (plan) => {
          const waiting = new AbortController();
          const timeout = AbortSignal.timeout(this.deps.planConfirmMs ?? PLAN_CONFIRM_TIMEOUT_MS);
          this.awaitingPlan.set(id, waiting);
          try {
            return await confirm(plan, AbortSignal.any([controller.signal, waiting.signal, timeout]));
          } finally {
            if (this.awaitingPlan.get(id) === waiting) this.awaitingPlan.delete(id);
          }
        };
      }
      if (sink.confirmTool) {
        const confirm = sink.confirmTool.bind(sink);
        // The prompt says the model chose the call, while answering whose message, and whether the
        // turn read earlier messages (a message planted there can ask for calls nobody wanted).
        const origin = {
          message: question,
          ...(message.userName ? { asker: message.userName } : {}),
          ...(read.forModel ? { readEarlier: true } : {}),
        };
        // Asked one at a time, and one Deny (or no answer) answers every call of the turn waiting or yet
        // to come: the asker saw a call they did not want, and the turn goes on at once instead of
        // showing more questions.
        const denied = new AbortController();
        let previous: Promise<unknown> = Promise.resolve();
        context.confirmTool = (request, signal) => {
          const asked = previous.then(async () => {
            if (denied.signal.aborted || signal.aborted) return false;
            const approved = await confirm(
              { ...request, origin },
              AbortSignal.any([
                signal,
                controller.signal,
                denied.signal,
                AbortSignal.timeout(TOOL_CONFIRM_TIMEOUT_MS),
              ]),
            );
            if (!approved) denied.abort();
            return approved;
          });
          previous = asked.catch(() => undefined);
          return asked;
        };
      }
      // Tool servers start on the first turn that may call tools; one that fails is a notice.
      if (mode !== 'chat' && this.deps.tools.prepare) {
        const notices = await this.deps.tools.prepare(controller.signal);
        for (const [index, text] of notices.entries()) emitNotice(emit, `notice-tools-${index}`, text);
      }
      const result = await this.deps.modes[mode](context);
      if (view.error) outcome = 'error';
      if (controller.signal.aborted) outcome = 'cancelled';
      if (result.answer) {
        const additions: ChatMessage[] = [
          ...(read.forHistory ? [read.forHistory] : []),
          { role: 'user', content: question },
          { role: 'assistant', content: result.answer },
        ];
        try {
          await appendTurn(
            this.deps.stores,
            message.conversationId,
            message.channelId,
            additions,
            this.deps.config.env.SESSION_TTL,
          );
          // What was read is now in the history: the next turn reads only what comes after this message.
          if (message.context)
            await this.contextCache.markSeen(message.conversationId, message.context.messageId);
        } catch (err) {
          // The answer is already on screen: say it was not saved rather than that nothing worked.
          log.error({ err }, 'answer shown but not saved');
          view.notSaved = true;
          emitNotice(emit, 'notice-not-saved', t(locale, 'notice.not-saved'), 'warning');
        }
      }
    } catch (err) {
      failure = err;
      outcome = isAbortError(err) || controller.signal.aborted ? 'cancelled' : 'error';
      if (outcome === 'error') log.error({ err }, 'turn failed');
      const suggestChat = mode !== 'chat';
      emit({
        type: 'error',
        message: toUserMessage(controller.signal.aborted ? new CancelledError() : err, locale, {
          suggestChat,
        }),
      });
    } finally {
      this.turns.delete(controller);
      if (this.running.get(message.conversationId) === controller)
        this.running.delete(message.conversationId);
      view.cancelled = outcome === 'cancelled';
      if (view.cancelled && !view.error) view.error = t(locale, 'error.cancelled');
      closeOpenSteps(view, view.cancelled ? 'skipped' : 'failed');
      view.status = null;
      view.done = true;
      ended = true;
      try {
        this.deps.observer?.onTurnEnd?.({ mode, outcome, ms: Date.now() - started, error: failure });
      } catch (err) {
        log.warn({ err }, 'turn observer failed');
      }
      await sink.done(view).catch((err) => log.error({ err }, 'final render failed'));
      // Released only once the final render landed: the next message of the conversation must not
      // post its steps between this answer's last messages.
      await lease.release().catch((err) => log.warn({ err }, 'lock release failed'));
    }
  }

  private commandDeps() {
    return {
      config: this.deps.config,
      stores: this.deps.stores,
      settings: this.settings,
      search: this.deps.search,
      tools: this.deps.tools,
      ...(this.deps.mcp ? { mcp: this.deps.mcp } : {}),
    };
  }
}
