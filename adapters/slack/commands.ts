/**
 * Slash commands. Slack sends no thread with a slash command and does not allow them in threads,
 * so they act on the channel's settings; replies are ephemeral. The handler matches by name from one
 * table, so a workspace that renamed a command (`/help` is often taken) still reaches it: `/scout-help`,
 * `/scout_help` and `/scouthelp` all map to `help` (see manifest.yml). A reply goes under the delivery
 * policy like every other write (src/render/reply.ts): split at the message limit, mentions
 * defused, rate limits retried.
 */
import type { App } from '@slack/bolt';
import { COMMAND_NAMES, type CommandName } from '../../src/core/commands.js';
import { say } from '../../src/i18n/say.js';
import type { Logger } from '../../src/logger.js';
import { deliverReply } from '../../src/render/reply.js';
import type { Locale, ScoutCore } from '../../src/surface.js';
import { channelId } from './ids.js';
import { renderReplyPart, SLACK_REPLY } from './render-blocks.js';
import { slackErrorCode, slackWrite } from './slack-client.js';

/** Prefixes a renamed command may carry in front of the core's name. */
const RENAME_PREFIXES = ['scout-', 'scout_', 'scout', 'ai-', 'ai_'];

/** Slash command (as typed, with its slash) → the core's command name; undefined when unknown. */
export function commandNameFor(slashCommand: string): CommandName | undefined {
  const word = slashCommand.replace(/^\//, '').toLowerCase();
  const names = COMMAND_NAMES as readonly string[];
  if (names.includes(word)) return word as CommandName;
  for (const prefix of RENAME_PREFIXES) {
    if (word.startsWith(prefix) && names.includes(word.slice(prefix.length))) {
      return word.slice(prefix.length) as CommandName;
    }
  }
  return undefined;
}

export interface CommandDeps {
  core: ScoutCore;
  logger: Logger;
  /** The user's locale (Slack's user locale when known). */
  localeOf: (userId: string) => Promise<Locale>;
  /** Called after a command changed settings (refreshes the user's App Home panel). */
  onChanged?: (team: string, userId: string) => Promise<void>;
}

export function registerCommands(app: App, deps: CommandDeps): void {
  app.command(/^\/.+/, async ({ command, ack, client, respond }) => {
    // Ack at once (Slack's 3 s limit); the reply follows as an ephemeral message.
    await ack();
    const name = commandNameFor(command.command) ?? command.command.replace(/^\//, '');
    const locale = await deps.localeOf(command.user_id);
    const reply = await deps.core.runCommand(name, command.text ?? '', {
      channelId: channelId(command.team_id, command.channel_id),
      userId: command.user_id,
      locale,
    });
    await deliverReply(say(locale ?? deps.core.locale, reply.text), SLACK_REPLY, [
      {
        write: (part) => {
          const { text, blocks } = renderReplyPart(part);
          return slackWrite(() =>
            client.chat.postEphemeral({
              channel: command.channel_id,
              user: command.user_id,
              text,
              blocks: blocks as never,
            }),
          );
        },
        // postEphemeral needs Scout in the channel (`not_in_channel`, `channel_not_found` in other
        // people's DMs); the command's response_url works everywhere, so the user still gets a reply.
        onFallback: (err) =>
          deps.logger.info(
            { err: slackErrorCode(err) ?? String(err), command: name },
            'ephemeral command reply refused; answering through response_url',
          ),
      },
      { write: (part) => respond({ response_type: 'ephemeral', text: part }) },
    ]).catch((err: unknown) =>
      deps.logger.warn(
        { err: slackErrorCode(err) ?? String(err), command: name },
        'slash command reply failed',
      ),
    );
    if (reply.changed) await deps.onChanged?.(command.team_id, command.user_id).catch(() => undefined);
  });
}
