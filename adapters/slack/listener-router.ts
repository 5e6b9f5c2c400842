/**
 * Scout's Slack actions and events, each kind behind one Bolt listener that picks the handler by
 * action id or event type.
 *
 * Why not one `app.action` / `app.event` per handler: Bolt runs every registered listener's
 * middleware chain for every request it receives, building a copy of the listener arguments and a
 * promise chain for each. With a listener per button and per event (about twenty), every mention
 * paid for twenty chains. Under a burst of mentions these copies stayed alive until the burst's
 * work was done, so V8 moved them to the old heap, where they stayed until the next full
 * collection (docs/performance.md, issue 30). One listener per kind and a map lookup do the same
 * work once.
 */
import type {
  AllMiddlewareArgs,
  App,
  BlockAction,
  SlackActionMiddlewareArgs,
  SlackEventMiddlewareArgs,
} from '@slack/bolt';

type ActionListener<A extends BlockAction> = (
  args: SlackActionMiddlewareArgs<A> & AllMiddlewareArgs,
) => Promise<void>;
type EventListener<E extends string> = (
  args: SlackEventMiddlewareArgs<E> & AllMiddlewareArgs,
) => Promise<void>;

export interface SlackListeners {
  /** The handler of a block action (a button or menu) with this `action_id`. */
  action<A extends BlockAction = BlockAction>(actionId: string, listener: ActionListener<A>): void;
  /** The handler of an Events API event of this type. */
  event<E extends string>(type: E, listener: EventListener<E>): void;
}

export function routeListeners(app: App): SlackListeners {
  const actions = new Map<string, ActionListener<BlockAction>>();
  const events = new Map<string, EventListener<string>>();
  app.action<BlockAction>({ type: 'block_actions' }, async (args) => {
    const handler = actions.get(args.action.action_id);
    // A press nobody handles (a link button, say) is still acknowledged: unacknowledged,
    // Slack shows the presser a warning sign.
    if (handler) await handler(args);
    else await args.ack();
  });
  app.event(/.*/, async (args) => {
    await events.get(args.event.type)?.(args);
  });
  return {
    action(actionId, listener) {
      if (actions.has(actionId)) throw new Error(`Slack action ${actionId} has two handlers`);
      actions.set(actionId, listener as unknown as ActionListener<BlockAction>);
    },
    event(type, listener) {
      if (events.has(type)) throw new Error(`Slack event ${type} has two handlers`);
      events.set(type, listener as unknown as EventListener<string>);
    },
  };
}
