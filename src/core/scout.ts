/**
 * The conversation core: every surface hands it messages and a sink; it decides between command,
 * short help and a turn, keeps per-conversation order, and runs the channel's mode.
 */
import { Budget, replyPrivately } from '../budget/budget.js';
import type { TurnMeter } from '../budget/turn-meter.js';
import { ContextCache } from '../context/context-cache.js';
import { CancelledError, isAbortError } from '../errors.js';
import { phrase } from '../i18n/phrase.js';
import { userMessage } from '../i18n/user-message.js';
import type { Logger } from '../logger.js';
import { emitNotice } from '../modes/turn/emit-notice.js';
import type { TurnContext } from '../modes/types.js';
import type { TurnEvent } from '../render/events.js';
import { closeOpenSteps, emptyView, foldEvent } from '../render/view.js';
import type { Stores } from '../store/types.js';
import type {
  CommandContext,
  CommandReply,
  IncomingMessage,
  Locale,
  Mode,
  ScoutCore,
  TurnSink,
} from '../surface.js';
import { isChannelAllowed, isUserAllowed } from './allowed-channels.js';
import { channelTools } from './channel-tools.js';
import { WORKSPACE_SEARCH_TOOL_NAME, withWorkspaceSearch } from '../tools/workspace-search-tool.js';
import { modeDescription, modeName, runCommand } from './command-handlers.js';
import { parseCommandText, repliesPrivately } from './commands.js';
import { acquireTurnLock, TURN_LOCK_TTL_MS } from './turn-lock.js';
import type { ScoutDeps } from './scout-deps.js';
import { saveTurn } from './save-turn.js';
import { PLAN_CONFIRM_TIMEOUT_MS, toolConfirmation, planConfirmation } from './turn-confirmations.js';
import { withInstructions } from '../prompts/operator-instructions.js';
import { filesOnlyQuestion, gatherTurnInput } from './turn-input.js';
import type { TurnScope } from './scout-deps.js';
import { heard } from '../turn-steps.js';
import { withDeadline } from '../llm/turn-deadline.js';
import type { ChannelSettings } from './settings.js';
import { SettingsService } from './settings-service.js';

/** Slack retries for up to ~5 minutes; remembering message ids for 10 covers every redelivery. */
const MESSAGE_DEDUPE_TTL_MS = 10 * 60_000;
/** `/reset` waits at most this long for a running turn to let go of its conversation. */
const RESET_LOCK_WAIT_MS = 15_000;

/** A turn's logger: the conversation's id on every line, and the trace's ids where the turn has some. */
const conversationLog = (logger: Logger, message: IncomingMessage, fields?: Record<string, string>) =>
  logger.child({ conversation: message.conversationId, ...fields });

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

  overDailyLimit(asker: { userId: string; channelId: string }): Promise<boolean> {
    return this.budget.overDailyLimit(asker);
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
      return { text: phrase('error.channel-not-allowed'), changed: false };
    }
    // Commands are private (ephemeral, the panel): a refused user is told, once, without detail.
    if (!isUserAllowed(this.deps.config, context))
      return { text: phrase('error.user-not-allowed'), changed: false };
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
      return { text: userMessage(err), changed: false };
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
    const log = conversationLog(this.deps.logger, message);
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
      if (text === '' && message.context?.attachments.length) text = filesOnlyQuestion(locale);
      if (text === '') {
        // The welcome names the channel's mode, as the seeds' greeting does.
        const { mode } = await this.settings.get(message.channelId);
        await sink.reply(phrase('help.short', { mode: modeName(mode), description: modeDescription(mode) }));
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
        await (repliesPrivately(command.name) ? replyPrivately(sink, result.text) : sink.reply(result.text));
        return;
      }
      // A new question while a plan waits for Run / Cancel moves on: the plan is declined, so its
      // turn ends and frees the conversation instead of keeping this message queued behind it.
      this.awaitingPlan.get(message.conversationId)?.abort(new CancelledError('superseded'));
      // Over a usage limit (or at the most answers at once): one private message, no turn. It is
      // not the answer asked for: `--once` and piped input exit 1 on it.
      const admission = await this.budget.admit(message, locale);
      if (admission.refusal) return await replyPrivately(sink, admission.refusal, { isError: true });
      try {
        const turn = (turnMessage: IncomingMessage, turnSink: TurnSink, scope?: TurnScope) =>
          this.runTurn(turnMessage, turnSink, locale, log, admission.meter, scope);
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
        .reply(userMessage(err), { isError: true })
        .catch((replyErr) => log.error({ err: replyErr }, 'reply failed'));
    }
  }

  private async runTurn(
    message: IncomingMessage,
    sink: TurnSink,
    locale: Locale,
    turnLog: Logger,
    meter: TurnMeter,
    scope?: TurnScope,
  ): Promise<void> {
    // An observer's scope (traces) hears what the turn does and labels its log lines. The labelled
    // logger is made beside the turn's, not under it: pino's child makes its parent a prototype, a
    // new object shape per turn for V8's caches, and the modes make their children of it in turn.
    const deps = this.deps;
    const log = scope?.logFields ? conversationLog(deps.logger, message, scope.logFields) : turnLog;
    const hearStep = scope?.hearStep;
    if (scope) meter.tellScope(scope);
    // Live edits asked for before the final render (a delivery's size, for the scope).
    let updates = 0;
    const controller = new AbortController();
    this.turns.add(controller);
    const view = emptyView();
    let ended = false;
    const emit = (event: TurnEvent) => {
      // A tool or stream still winding down after Stop or a time limit may emit late: the turn's
      // final view is already rendered, so late events must not change it or redraw it.
      if (ended) return;
      foldEvent(view, event, locale);
      updates += 1;
      sink.update(view);
    };
    const deliver = () => heard(hearStep, { kind: 'deliver', updates, view }, () => sink.done(view));
    // Behind an earlier answer (or a dead holder's lease running out): say so instead of silence.
    const lock = await acquireTurnLock(
      deps.stores.locks,
      message.conversationId,
      controller.signal,
      (waiting) => emit({ type: 'status', text: waiting ? phrase('notice.waiting') : null }),
    );
    if ('error' in lock) {
      this.turns.delete(controller);
      if (!lock.waited) throw lock.error;
      // The waiting notice is on screen: that same message ends with the reason.
      if (!isAbortError(lock.error))
        log.error({ err: lock.error }, 'turn could not get its conversation lock');
      ended = true;
      foldEvent(view, { type: 'error', message: userMessage(lock.error) }, locale);
      Object.assign(view, { status: null, done: true, cancelled: isAbortError(lock.error) });
      await deliver().catch((doneErr) => log.error({ err: doneErr }, 'final render failed'));
      return;
    }
    const { lease } = lock;
    this.running.set(message.conversationId, controller);
    const started = Date.now();
    // Chat has no time limit of its own: a rate-limit wait longer than the agent's limit fails fast.
    withDeadline(controller.signal, started + deps.config.env.AGENT_MAX_EXECUTION_TIME * 1000);
    let mode: Mode = 'chat';
    let outcome: 'ok' | 'error' | 'cancelled' = 'ok';
    let failure: unknown;
    try {
      const settings = await this.settings.get(message.channelId);
      mode = settings.mode;
      deps.observer?.onTurnStart?.({ mode, conversationId: message.conversationId });
      scope?.onTurnStart?.({ mode, conversationId: message.conversationId });
      const { question, read, window, instructions } = await gatherTurnInput({
        message,
        settings,
        deps,
        contextCache: this.contextCache,
        meter,
        locale,
        emit,
        signal: controller.signal,
        log,
        ...(hearStep ? { hearStep } : {}),
      });
      if (window.notSaved) view.notSaved = true;
      const tool = meter.wrapLlm(deps.llm(settings.toolModel));
      const answer = settings.answerModel ? meter.wrapLlm(deps.llm(settings.answerModel)) : tool;
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
        tools: meter.wrapTools(
          withWorkspaceSearch(
            channelTools(deps.tools, settings.toolRules, question),
            message.workspaceSearch,
          ),
        ),
        search: deps.search,
        prompts: withInstructions(deps.prompts, instructions),
        config: deps.config,
        logger: log,
      };
      if (hearStep) context.hearStep = hearStep;
      const confirmPlan = planConfirmation(sink, {
        conversationId: message.conversationId,
        turnSignal: controller.signal,
        awaiting: this.awaitingPlan,
        timeoutMs: deps.planConfirmMs ?? PLAN_CONFIRM_TIMEOUT_MS,
        hearStep,
      });
      if (confirmPlan) context.confirmPlan = confirmPlan;
      const confirmTool = toolConfirmation(sink, {
        origin: {
          message: question,
          ...(message.userName ? { asker: message.userName } : {}),
          ...(read.forModel ? { readEarlier: true } : {}),
        },
        turnSignal: controller.signal,
        hearStep,
      });
      if (confirmTool) context.confirmTool = confirmTool;
      // Tool servers start on the first turn that may call tools; one that fails is a notice.
      if (mode !== 'chat' && deps.tools.prepare) {
        const notices = await deps.tools.prepare(controller.signal);
        for (const [index, text] of notices.entries()) emitNotice(emit, `notice-tools-${index}`, text);
      }
      // Workspace search is on but this message cannot search (a slash command has no action token).
      const unserved = message.workspaceSearch?.unavailable;
      if (
        (mode !== 'chat' || settings.search) &&
        unserved &&
        channelTools(deps.tools, settings.toolRules).has(WORKSPACE_SEARCH_TOOL_NAME)
      )
        emitNotice(
          emit,
          'notice-workspace',
          phrase('notice.workspace-unavailable', { reason: unserved.reason }),
        );
      const result = await deps.modes[mode](context);
      if (view.error) outcome = 'error';
      if (controller.signal.aborted) outcome = 'cancelled';
      if (result.answer) {
        const saved = await saveTurn(deps.stores, this.contextCache, {
          message,
          additions: [
            ...(read.forHistory ? [read.forHistory] : []),
            { role: 'user', content: question },
            { role: 'assistant', content: result.answer },
          ],
          ttlMs: deps.config.env.SESSION_TTL,
          log,
        });
        if (!saved) {
          // The answer is already on screen: say it was not saved rather than that nothing worked.
          view.notSaved = true;
          emitNotice(emit, 'notice-not-saved', phrase('notice.not-saved'), 'warning');
        }
      }
    } catch (err) {
      failure = err;
      outcome = isAbortError(err) || controller.signal.aborted ? 'cancelled' : 'error';
      if (outcome === 'error') log.error({ err }, 'turn failed');
      const suggestChat = mode !== 'chat';
      emit({
        type: 'error',
        message: userMessage(controller.signal.aborted ? new CancelledError() : err, { suggestChat }),
      });
    } finally {
      this.turns.delete(controller);
      if (this.running.get(message.conversationId) === controller)
        this.running.delete(message.conversationId);
      view.cancelled = outcome === 'cancelled';
      if (view.cancelled && !view.error)
        foldEvent(view, { type: 'error', message: phrase('error.cancelled') }, locale);
      closeOpenSteps(view, view.cancelled ? 'skipped' : 'failed');
      view.status = null;
      view.done = true;
      ended = true;
      try {
        const end = { mode, outcome, ms: Date.now() - started, error: failure };
        deps.observer?.onTurnEnd?.(end);
        scope?.onTurnEnd?.(end);
      } catch (err) {
        log.warn({ err }, 'turn observer failed');
      }
      await deliver().catch((err) => log.error({ err }, 'final render failed'));
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
