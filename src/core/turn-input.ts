/**
 * What a turn starts from: the question (cut when huge), the thread and files it read, the history
 * that fits the context window (older turns folded into the conversation's summary) and the
 * channel's operator instructions, with the room each takes accounted for.
 */
import type { ContextCache } from '../context/context-cache.js';
import { readTurnContext, type TurnContextMessages } from '../context/turn-context.js';
import { phrase } from '../i18n/phrase.js';
import { warnIfNearContextWindow } from '../llm/tokens.js';
import type { Logger } from '../logger.js';
import { RESERVED_OUTPUT_TOKENS } from '../modes/turn/context-room.js';
import { emitNotice } from '../modes/turn/emit-notice.js';
import { instructionsTokens } from '../prompts/operator-instructions.js';
import type { TurnEvent } from '../render/events.js';
import { loadConversation } from '../store/conversation-summary.js';
import type { IncomingMessage, Locale } from '../surface.js';
import type { TurnMeter } from '../budget/turn-meter.js';
import { fitWithMemory, type MemoryWindow } from './conversation-memory.js';
import { effectiveInstructions } from './instructions.js';
import type { ScoutDeps } from './scout-deps.js';
import type { HearStep } from '../turn-steps.js';
import type { ChannelSettings } from './settings.js';

/** A message longer than this is cut (with a notice): a 100 KB paste must not blow the context window. */
export const MAX_INPUT_CHARS = 16_000;

/**
 * The question a mention with only files attached asks. It is not a reply to the user but the
 * asker's turn as the model reads it (and as history keeps it), in the asker's language; the approval
 * prompt quotes it back as the asker's words.
 */
const FILES_ONLY_QUESTION: Record<Locale, string> = {
  en: 'Please look at the attached files.',
  zh: '请看一下附件。',
};

export function filesOnlyQuestion(locale: Locale): string {
  return FILES_ONLY_QUESTION[locale];
}

export interface TurnInput {
  question: string;
  read: TurnContextMessages;
  window: MemoryWindow;
  instructions: string | undefined;
}

export async function gatherTurnInput(args: {
  message: IncomingMessage;
  settings: ChannelSettings;
  deps: Pick<ScoutDeps, 'config' | 'stores' | 'prompts' | 'llm'>;
  contextCache: ContextCache;
  meter: TurnMeter;
  locale: Locale;
  emit: (event: TurnEvent) => void;
  signal: AbortSignal;
  log: Logger;
  /** The turn's scope hears the thread and files read. */
  hearStep?: HearStep;
}): Promise<TurnInput> {
  const { message, settings, deps, locale, emit, signal, log } = args;
  let question = message.text;
  if (question.length > MAX_INPUT_CHARS) {
    question = question.slice(0, MAX_INPUT_CHARS);
    emitNotice(emit, 'notice-input-trimmed', phrase('notice.input-trimmed', { chars: MAX_INPUT_CHARS }));
  }
  const conversation = await loadConversation(deps.stores, message.conversationId);
  const read: TurnContextMessages = message.context
    ? await readTurnContext({
        source: message.context,
        conversationId: message.conversationId,
        hasHistory: conversation.messages.length > 0,
        models: settings.answerModel ? [settings.toolModel, settings.answerModel] : [settings.toolModel],
        config: deps.config,
        cache: args.contextCache,
        locale,
        emit,
        signal,
        logger: log,
        ...(args.hearStep ? { hearStep: args.hearStep } : {}),
      })
    : { tokens: 0 };
  // The channel's operator instructions (or the default) close every system prompt.
  const instructions = effectiveInstructions(settings, deps.config);
  // Turns that no longer fit are folded into the conversation's summary (conversation-memory.ts).
  const window = await fitWithMemory({
    conversation,
    conversationId: message.conversationId,
    question,
    contextWindow: deps.config.env.LLM_CONTEXT_WINDOW,
    reserveTokens:
      (settings.toolModel.maxTokens ?? RESERVED_OUTPUT_TOKENS) +
      2_000 +
      read.tokens +
      instructionsTokens(instructions),
    summariser: args.meter.wrapLlm(deps.llm(deps.config.summaryModel ?? settings.toolModel)),
    prompts: deps.prompts,
    stores: deps.stores,
    ttlMs: deps.config.env.SESSION_TTL,
    emit,
    signal,
    logger: log,
  });
  warnIfNearContextWindow(window.tokens, deps.config.env.LLM_CONTEXT_WINDOW, log);
  return { question, read, window, instructions };
}
