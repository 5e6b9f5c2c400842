/** Settings belong to a channel; the type is part of the surface contract (src/surface.ts). */
export type { ChannelSettings } from '../surface.js';
