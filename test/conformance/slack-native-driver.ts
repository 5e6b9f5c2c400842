/**
 * "slack-native": the real Slack surface with Slack's native AI streaming on (chat.startStream /
 * appendStream / stopStream, task cards), against the strict fake Web API — the same renderer as
 * slack-classic with its stream capability. A stream carries no buttons, so a turn whose answer is
 * one streamed message has no Stop button to press (Stop shows on posted overflow parts only).
 */
import { slackWorld } from './slack-classic-driver.js';
import type { SurfaceDriver } from './surface-driver.js';

export const slackNativeDriver: SurfaceDriver = {
  name: 'slack-native',
  lacks: new Set(['stop-button']),
  start: (options) => slackWorld(true, options),
};
