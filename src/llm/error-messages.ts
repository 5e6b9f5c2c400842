/**
 * What a person sees for each LLM failure, in English and Simplified Chinese. The lead's
 * `src/i18n/` collects these; keep them free of provider details and secrets.
 */
import type { LlmErrorCode } from '../errors.js';

export const LLM_ERROR_MESSAGES: Readonly<Record<LlmErrorCode, { en: string; zh: string }>> = Object.freeze({
  auth: {
    en: 'The AI provider rejected the API key. Ask an admin to check the key.',
    zh: 'AI 服务商拒绝了 API 密钥，请联系管理员检查密钥配置。',
  },
  insufficient_balance: {
    en: 'The AI provider account has run out of balance.',
    zh: 'AI 服务商账户余额不足。',
  },
  rate_limited: {
    en: 'The AI provider is rate-limiting requests. Please try again in a minute.',
    zh: 'AI 服务商请求过于频繁，请稍后再试。',
  },
  overloaded: {
    en: 'The AI provider is overloaded right now. Please try again shortly.',
    zh: 'AI 服务商当前负载过高，请稍后再试。',
  },
  server: {
    en: 'The AI provider had an internal error. Please try again.',
    zh: 'AI 服务商出现内部错误，请重试。',
  },
  network: {
    en: 'Could not reach the AI provider. Please try again.',
    zh: '无法连接 AI 服务商，请重试。',
  },
  timeout: {
    en: 'The AI model took too long to respond.',
    zh: 'AI 模型响应超时。',
  },
  bad_request: {
    en: 'The AI provider rejected the request.',
    zh: 'AI 服务商拒绝了该请求。',
  },
  reasoning_content: {
    en: 'The conversation history could not be sent to DeepSeek. Try /reset and ask again.',
    zh: '无法将对话历史发送给 DeepSeek，请使用 /reset 后重新提问。',
  },
  empty_response: {
    en: 'The model returned no output. Please try again or rephrase.',
    zh: '模型没有返回任何内容，请重试或换一种问法。',
  },
  cancelled: {
    en: 'Stopped.',
    zh: '已停止。',
  },
});
