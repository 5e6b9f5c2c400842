/**
 * The short texts Scout sends on Slack outside a turn's messages: a private note to whoever pressed
 * a button or wrote (ephemeral), and the suggested prompts of a new assistant thread. Like
 * render-blocks.ts and home-view.ts this is a payload builder, where phrases are said in the user's
 * locale: the event handlers hand phrases on.
 */
import type { UserText } from '../../src/i18n/phrase.js';
import { say } from '../../src/i18n/say.js';
import { t } from '../../src/i18n/translate.js';
import type { Locale } from '../../src/surface.js';

/** Who sees an ephemeral note, and where: in the thread of `threadTs` when given. */
export interface NoteTarget {
  channel: string;
  user: string;
  threadTs?: string;
}

/** `chat.postEphemeral`'s arguments for a note only `user` sees. */
export function ephemeralNote(target: NoteTarget, text: UserText, locale: Locale) {
  return {
    channel: target.channel,
    user: target.user,
    text: say(locale, text),
    ...(target.threadTs ? { thread_ts: target.threadTs } : {}),
  };
}

/** Suggested prompts in a new assistant thread (Slack allows at most 4); the messages are commands. */
export function suggestedPrompts(locale: Locale) {
  return [
    { title: t(locale, 'suggested.help.title'), message: 'help' },
    { title: t(locale, 'suggested.search.title'), message: t(locale, 'suggested.search.message') },
    { title: t(locale, 'suggested.agent.title'), message: 'mode agent' },
  ];
}
