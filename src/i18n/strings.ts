/**
 * Every user-visible string of Scout — core, renderer and every surface — in English and Simplified
 * Chinese (the Chinese in the seeds' wording). One catalog, one `t` (translate.ts): a surface never
 * keeps its own table, so the same thing reads the same everywhere. `{name}` placeholders are
 * filled by `t`.
 *
 * The tables live in one file per area and locale (en-*.ts, zh-*.ts: commands, turn, features), each
 * zh part typed to have exactly its en part's keys; here they are joined into the one catalog.
 */
import { EN_COMMANDS } from './en-commands.js';
import { EN_FEATURES } from './en-features.js';
import { EN_TURN } from './en-turn.js';
import { ZH_COMMANDS } from './zh-commands.js';
import { ZH_FEATURES } from './zh-features.js';
import { ZH_TURN } from './zh-turn.js';

export const STRINGS = {
  en: { ...EN_COMMANDS, ...EN_TURN, ...EN_FEATURES },
  zh: { ...ZH_COMMANDS, ...ZH_TURN, ...ZH_FEATURES },
} as const;

/** A key in two parts would silently override the other once joined: a compile error instead. */
type Shared<A, B> = Extract<keyof A, keyof B>;
type KeysInTwoParts =
  | Shared<typeof EN_COMMANDS, typeof EN_TURN>
  | Shared<typeof EN_COMMANDS, typeof EN_FEATURES>
  | Shared<typeof EN_TURN, typeof EN_FEATURES>;
const noKeyInTwoParts: [KeysInTwoParts] extends [never] ? true : KeysInTwoParts = true;
void noKeyInTwoParts;

export type StringKey = keyof (typeof STRINGS)['en'];
