import type { ModelConfig } from '../llm/types.js';
import type { Mode } from '../surface.js';

/** Settings belong to a channel (a DM is a channel). Stored in the `settings` Keyv namespace. */
export interface ChannelSettings {
  mode: Mode;
  /** Chat mode's search switch. */
  search: boolean;
  /** The search switch as it was when the channel left chat mode; restored on return (default off). */
  savedSearch?: boolean;
  /** Function-call model (and the chat model). */
  toolModel: ModelConfig;
  /** Answer model; null means "same as the function-call model". */
  answerModel: ModelConfig | null;
  /** Discord: open a thread on a mention (default) or reply in place. */
  replyInThread: boolean;
}
