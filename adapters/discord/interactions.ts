/**
 * Routes Discord interactions: slash commands to the core, and Scout's buttons — Show/Hide details
 * (`scout_steps_toggle:<turn>`), Stop (`scout_stop`), 👍/👎 (`scout_feedback:<up|down>:<turn>`) and
 * plan Run/Cancel (`scout_plan:<run|cancel>:<turn>`), a tool's Approve/Deny
 * (`scout_tool:<approve|deny>:<turn>`). Stop, Run/Cancel and Approve/Deny are for the person who asked,
 * or an admin.
 */
import type { ButtonInteraction, Interaction } from 'discord.js';
import { phrase, type UserText } from '../../src/i18n/phrase.js';
import { toLocale } from '../../src/i18n/locale.js';
import type { Logger } from '../../src/logger.js';
import type { Locale, ScoutCore } from '../../src/surface.js';
import { handleSlashCommand, interactionPlace, isScoutCommand } from './commands.js';
import { conversationKey } from './ids.js';
import { CUSTOM_ID, ephemeralPayload, stepsPayload } from './render.js';
import type { ActiveTurns, StepsArchive } from './turn-state.js';
import type { Requester } from '../../src/core/allowed-channels.js';
import { interactionRoles, requesterOf } from './requester.js';

export interface InteractionDeps {
  core: ScoutCore;
  logger: Logger;
  active: ActiveTurns;
  archive: StepsArchive;
  /** ADMIN_USERS: they may stop or answer anyone's turn. */
  admins?: readonly string[];
  /** The access lists (ALLOWED_USERS, BLOCKED_USERS, ALLOWED_ROLES); absent: everyone. */
  isAllowed?: (who: Requester) => boolean;
}

/** The asker may press their turn's buttons, and so may admins; an unknown asker is not checked. */
function mayPress(presser: string, asker: string | undefined, admins: readonly string[]): boolean {
  return asker === undefined || presser === asker || admins.includes(presser);
}

export async function handleInteraction(interaction: Interaction, deps: InteractionDeps): Promise<void> {
  try {
    if (interaction.isChatInputCommand()) {
      if (isScoutCommand(interaction.commandName))
        await handleSlashCommand(interaction, deps.core, deps.logger);
      return;
    }
    if (interaction.isButton()) await handleButton(interaction, deps);
  } catch (err) {
    deps.logger.error({ err, interaction: interaction.id }, 'discord interaction failed');
  }
}

async function handleButton(interaction: ButtonInteraction, deps: InteractionDeps): Promise<void> {
  const locale: Locale = toLocale(interaction.locale, deps.core.locale);
  const [kind, a, b] = interaction.customId.split(':');
  const ephemeral = (text: UserText) => interaction.reply(ephemeralPayload(text, locale));
  const who = requesterOf(interaction.user.id, interactionRoles(interaction.member), !interaction.inGuild());
  if (deps.isAllowed && !deps.isAllowed(who)) {
    await ephemeral(phrase('error.user-not-allowed'));
    return;
  }

  switch (kind) {
    case CUSTOM_ID.toggle: {
      const turnId = a ?? '';
      const running = deps.active.get(turnId);
      if (running) {
        // The running sink owns the message's edits (throttled); acknowledge without editing here.
        await interaction.deferUpdate();
        running.toggleDetails();
        return;
      }
      const archived = await deps.archive.load(turnId);
      if (!archived) {
        await ephemeral(phrase('steps.expired'));
        return;
      }
      archived.expanded = !archived.expanded;
      await deps.archive.save(turnId, archived);
      const view = { answer: '', answerFinal: true, sources: [], cancelled: false, ...archived.view };
      await interaction.update(
        stepsPayload(view, { turnId, expanded: archived.expanded, locale: archived.locale, running: false }),
      );
      return;
    }
    case CUSTOM_ID.stop: {
      const conversation = conversationKey(interactionPlace(interaction));
      if (!mayPress(interaction.user.id, deps.active.askerOf(conversation), deps.admins ?? [])) {
        deps.logger.info({ conversation, user: interaction.user.id }, 'discord stop refused');
        await ephemeral(phrase('stop.not-yours'));
        return;
      }
      const stopped = deps.core.cancel(conversation);
      deps.logger.info({ conversation, stopped, user: interaction.user.id }, 'discord stop pressed');
      await ephemeral(phrase(stopped ? 'stop.requested' : 'stop.nothing-running'));
      return;
    }
    case CUSTOM_ID.feedback: {
      deps.logger.info({ turn: b, vote: a, user: interaction.user.id }, 'answer feedback');
      await ephemeral(phrase('feedback.thanks'));
      return;
    }
    case CUSTOM_ID.plan:
    case CUSTOM_ID.tool: {
      // A plan's Run / Cancel and a tool call's Approve / Deny: the asker's (or an admin's) choice.
      const plan = kind === CUSTOM_ID.plan;
      const turn = deps.active.get(b ?? '');
      if (turn && !mayPress(interaction.user.id, turn.askerId, deps.admins ?? [])) {
        await ephemeral(phrase(plan ? 'plan.not-yours' : 'tool-approval.not-yours'));
        return;
      }
      const resolved =
        (plan ? turn?.resolvePlan(a === 'run') : turn?.resolveApproval(a === 'approve')) ?? false;
      if (resolved) await interaction.deferUpdate();
      else await ephemeral(phrase('button.inactive'));
      return;
    }
    default:
      // Discord only sends Scout presses on Scout's own components: an id it does not know (an
      // older version's button) still gets an answer, never "This interaction failed".
      deps.logger.info({ customId: interaction.customId.slice(0, 100) }, 'unknown button pressed');
      await ephemeral(phrase('button.inactive'));
      return;
  }
}
