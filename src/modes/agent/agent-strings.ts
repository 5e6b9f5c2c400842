/**
 * Every user-visible string of agent and plan mode, in English and Simplified Chinese (the Chinese
 * follows the seeds' wording). The lead's `src/i18n/` collects these tables later.
 */
import type { Locale } from '../../surface.js';

type Text = string | ((...args: never[]) => string);
type Table = Record<string, { en: Text; zh: Text }>;

export const AGENT_STRINGS = {
  thinking: { en: '💭 Thinking…', zh: '💭 思考中...' },
  thoughtDone: { en: '💡 Thought process', zh: '💡 思考过程' },
  searchTitle: { en: (q: string) => `🔍 Searching: ${q}`, zh: (q: string) => `🔍 搜索：${q}` },
  searchDone: { en: (q: string) => `🔍 Searched: ${q}`, zh: (q: string) => `🔍 已搜索：${q}` },
  searchCached: { en: ' (cached)', zh: '（缓存）' },
  searchFailed: { en: (q: string) => `❌ Search failed: ${q}`, zh: (q: string) => `❌ 搜索失败：${q}` },
  resultsTitle: {
    en: (n: number) => `📄 Found ${n} result${n === 1 ? '' : 's'}`,
    zh: (n: number) => `📄 找到 ${n} 条结果`,
  },
  toolTitle: { en: (name: string) => `🛠️ ${name}`, zh: (name: string) => `🛠️ ${name}` },
  toolFailed: { en: (name: string) => `❌ ${name} failed`, zh: (name: string) => `❌ ${name} 执行失败` },
  repeatedCall: {
    en: 'This exact call was already made; see the earlier result.',
    zh: '该调用已执行过，请参考之前的结果。',
  },
  evaluationTitle: { en: '📊 Evaluating results', zh: '📊 评估工具调用结果' },
  sufficient: {
    en: 'Results are sufficient — switching to the answer model',
    zh: '工具调用结果已满足要求，切换到回答生成模型',
  },
  insufficient: {
    en: (chars: number, min: number) =>
      `Results are empty or too short (${chars} of ${min} characters) — searching more`,
    zh: (chars: number, min: number) => `结果为空或长度不足（${chars} / ${min} 字符），继续搜索`,
  },
  sufficientModelDecides: {
    en: (chars: number) =>
      `Results look sufficient (${chars} characters) — the function-call model decides whether another search is needed`,
    zh: (chars: number) => `工具调用结果已满足要求（${chars} 字符），由工具调用模型决定是否继续搜索`,
  },
  sufficientAndDone: {
    en: 'Results are sufficient and the model needs no more tools — switching to the answer model',
    zh: '工具调用结果已满足要求，模型无需继续调用工具，切换到回答生成模型',
  },
  answerPhaseSameModel: {
    en: (model: string) => `✍️ The same model writes the answer: ${model}`,
    zh: (model: string) => `✍️ 由同一模型生成回答：${model}`,
  },
  planDone: {
    en: 'The plan has run — switching to the answer model for the summary',
    zh: '计划已执行完毕，切换到回答生成模型进行总结',
  },
  partialResults: {
    en: (n: number) => `Sources found before the error (${n}):`,
    zh: (n: number) => `出错前找到的来源（${n} 条）：`,
  },
  maxToolCalls: {
    en: (n: number) => `Reached the tool-call limit (${n}) — switching to the answer model`,
    zh: (n: number) => `已达到最大工具调用次数（${n} 次），切换到回答生成模型`,
  },
  noMoreTools: {
    en: 'The model needs no more tools — switching to the answer model',
    zh: '模型无需继续调用工具，切换到回答生成模型',
  },
  iterationLimit: {
    en: (n: number) => `⚠️ Reached the iteration limit (${n}); answering from what was gathered`,
    zh: (n: number) => `⚠️ 已达到迭代上限（${n} 次），基于已有信息生成回答`,
  },
  timeout: {
    en: (s: number) => `⏱️ Execution timed out after ${s} s; answering from the intermediate results`,
    zh: (s: number) => `⏱️ 执行超时（${s} 秒），基于已有的中间结果生成回答`,
  },
  loopDetected: {
    en: '🔁 The agent kept repeating the same action, so it was stopped. Try rephrasing your question or switching mode (`/mode chat`).',
    zh: '🔁 检测到重复操作，已停止执行。请重新提问或切换模式（`/mode chat`）。',
  },
  modelSwitchTitle: { en: '🔄 Switching model', zh: '🔄 模型切换' },
  modelSwitchBody: {
    en: (reason: string, tool: string, answer: string) =>
      `${reason}\nTool-call model: ${tool} → answer model: ${answer}`,
    zh: (reason: string, tool: string, answer: string) =>
      `${reason}\n工具调用模型：${tool} → 回答生成模型：${answer}`,
  },
  answerTimedOut: {
    en: '⏱️ The answer took too long and was stopped. Please try again, or switch to chat mode with `/mode chat`.',
    zh: '⏱️ 生成回答超时，已停止。请重试，或使用 `/mode chat` 切换到 Chat 模式。',
  },
  unexpectedError: {
    en: 'Something went wrong while working on your question. Please try again, or switch to chat mode with `/mode chat`.',
    zh: '处理问题时发生错误。请重试，或使用 `/mode chat` 切换到 Chat 模式。',
  },
  partialAnswerNote: {
    en: '_(The answer was cut short.)_',
    zh: '_（回答未能完整生成。）_',
  },
  searchUnavailable: {
    en: 'ℹ️ Web search is not configured, so the agent answers from the model’s own knowledge.',
    zh: 'ℹ️ 未配置网络搜索，Agent 将基于模型自身的知识回答。',
  },
  statusThinking: { en: 'Thinking…', zh: '思考中...' },
  statusSearching: { en: 'Searching…', zh: '搜索中...' },
  statusAnswering: { en: 'Writing the answer…', zh: '正在生成回答...' },
  // ── Plan mode ────────────────────────────────────────────────────────────────
  planTitle: { en: '📋 Plan', zh: '📋 执行计划' },
  planStepTitle: {
    en: (n: number, description: string, tool: string) => `${n}. ${description} (${tool})`,
    zh: (n: number, description: string, tool: string) => `${n}. ${description}（${tool}）`,
  },
  planCancelled: { en: 'Plan cancelled', zh: '计划已取消' },
  planInvalid: {
    en: (problem: string) => `The planner did not return a valid plan, even after one correction: ${problem}`,
    zh: (problem: string) => `规划模型未能生成有效的计划（已尝试修正一次）：${problem}`,
  },
  planStepSkipped: {
    en: (error: string) => `${error}\n(skipped; continuing with the next step)`,
    zh: (error: string) => `${error}\n（已跳过，继续执行下一步）`,
  },
  planStopped: {
    en: (n: number) => `⚠️ Step ${n} failed, so the plan was stopped; summarising what was done`,
    zh: (n: number) => `⚠️ 第 ${n} 步执行失败，计划已终止；基于已完成的步骤生成总结`,
  },
  planNotRun: { en: 'Not run', zh: '未执行' },
} satisfies Table;

type Strings = typeof AGENT_STRINGS;

/** The string for a locale (functions stay functions, so callers pass their arguments). */
export function t<K extends keyof Strings>(locale: Locale, key: K): Strings[K]['en'] {
  const entry = AGENT_STRINGS[key];
  return (locale === 'zh' ? entry.zh : entry.en) as Strings[K]['en'];
}
