/**
 * What a person sees when the store fails (collected by `src/i18n` later). StoreError messages are for
 * logs; these are the friendly versions.
 */
export const STORE_MESSAGES = {
  unavailable: {
    en: 'I cannot reach my memory store right now, so I could not handle this message. Please try again in a moment.',
    zh: '暂时无法连接存储服务，这条消息没有处理。请稍后再试。',
  },
  busy: {
    en: 'An earlier message in this conversation is still being answered. Please try again when it has finished.',
    zh: '这个会话中的上一条消息仍在处理中，请等它完成后再试。',
  },
} as const satisfies Record<string, { en: string; zh: string }>;
