/**
 * Hand-written Slack Events API callbacks (no shared fixture needed), shaped as Slack sends them, for
 * the fake bot user and workspace of `fake-slack-api.ts`.
 */
export const TEAM_ID = 'T00FAKE00AA';
export const DM_CHANNEL = 'D0A5319PS02';
const BOT_USER_ID = 'U00FAKEBOT01';
const USER_ID = 'U00FAKEUSER1';

/** The event callback of a DM `message`: the user writes `text` at `ts` in Scout's DM channel. */
export function dmEventCallback(text: string, ts: string, eventId = `Ev${ts.replace('.', '')}`) {
  return {
    token: 'legacy-verification-token',
    team_id: TEAM_ID,
    api_app_id: 'A00FAKEAPP01',
    type: 'event_callback',
    event_id: eventId,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [{ user_id: BOT_USER_ID, is_bot: true }],
    event: {
      type: 'message',
      user: USER_ID,
      ts,
      text,
      channel: DM_CHANNEL,
      event_ts: ts,
      channel_type: 'im',
    },
  };
}
