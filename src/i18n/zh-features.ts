/**
 * Simplified Chinese strings (catalog in strings.ts): one commented block per feature added later (memory, instructions, limits and /usage, prompt
 * caching). New keys go in a block of their own at the END of this table, so that branches adding
 * keys at the same time merge cleanly.
 * Checked at compile time to have exactly the keys of en-features.ts.
 */
import type { EN_FEATURES } from './en-features.js';

export const ZH_FEATURES = {
  // 会话记忆（src/core/conversation-memory.ts，/memory）：过长的历史折叠为摘要。
  'command.memory': '查看本会话较早消息的摘要；`clear` 清除摘要',
  'option.memory': '对摘要做什么',
  'choice.memory-clear': '清除摘要',
  'memory.summarising': '正在摘要 {count} 条较早的消息…',
  'memory.summarised': '已摘要 {count} 条较早的消息',
  'memory.failed': '未能摘要较早的消息，本次回答未包含它们；Scout 会在下一次回答时重试。',
  'memory.not-saved': '较早消息的摘要未能保存：Scout 的存储暂时不可用，摘要仅用于本次回答。',
  'memory.show': '*{count} 条较早消息的摘要*（更新于 {date}）：\n{text}',
  'memory.empty': '还没有摘要：本会话仍在模型的上下文窗口之内。',
  'memory.cleared': '🧹 较早消息的摘要已清除；最近的消息仍保留。',
  'memory.no-conversation': '此命令需要在会话中使用：请在要查看的话题里发送 `@Scout memory`。',
  // ── 指令（/instructions、SCOUT_INSTRUCTIONS；src/core/instructions.ts）──
  'command.instructions': '查看或设置本频道给 Scout 的指令（回答语言、语气、产品、优先来源）；`clear` 删除',
  'option.instructions': 'Scout 在这里应了解或遵循的内容（例如用法语回答、我们的产品是……），或 clear',
  'instructions.where.channel': '本频道',
  'instructions.where.terminal': '本终端对话',
  'instructions.none':
    '{where}尚未设置指令。`/instructions <文本>` 可以设置：回答所用的语言、语气、你们的产品、优先参考的来源。',
  'instructions.show.own': '*{where}的指令*（{chars} 个字符）：',
  'instructions.show.default': '*默认指令*（SCOUT_INSTRUCTIONS；{where}没有自己的指令，{chars} 个字符）：',
  'instructions.how':
    '它们放在每种模式的提示词中、Scout 自身规则之后，不能改变这些规则。`/instructions <文本>` 替换，`/instructions clear` 删除。',
  'instructions.set':
    '✅ 已为{where}保存指令（{chars} 个字符）。从下一条消息起在所有模式中生效，位于 Scout 自身规则之后。',
  'instructions.cut': '✂️ 指令已截断为 {max} 个字符（省略了 {cut} 个字符）。',
  'instructions.cleared': '🧹 已删除{where}的指令。',
  'instructions.cleared-default': '🧹 已删除{where}的指令；重新使用默认指令（SCOUT_INSTRUCTIONS）。',
  'instructions.nothing-to-clear': '{where}没有自己的指令可删除。',
  'instructions.empty': '去掉控制字符后指令为空，未保存。',
  'instructions.looks-like-secret':
    '这些指令看起来包含 API 密钥或令牌，因此未保存也不在此显示；如果它是真实密钥，请吊销并重新创建。',
  'config.instructions': '指令',
  'config.instructions.none': '无（`/instructions <文本>` 可设置）',
  'config.instructions.channel': '本处设置（{chars} 个字符）：{preview}',
  'config.instructions.default': 'SCOUT_INSTRUCTIONS 默认指令（{chars} 个字符）：{preview}',
  'home.instructions': '📝 指令（用 `/instructions <文本>` 设置）',
  'home.instructions-none': '本频道没有自己的指令；`/config` 会说明是否使用默认指令。',
  // ── Limits and /usage (src/budget) ──
  'command.usage': '查看你的用量（今天、7 天、30 天）；管理员还可看到用量最多的频道、用户、模型和工具',
  'budget.refused.user-usd':
    '⛔ 你已达到每人每日费用上限（{limit}），本次不再开始回答。上限于 UTC 00:00 重置，还有 {resetIn}。',
  'budget.refused.user-tokens':
    '⛔ 你已达到每人每日 {limit} token 的上限，本次不再开始回答。上限于 UTC 00:00 重置，还有 {resetIn}。',
  'budget.refused.channel-usd':
    '⛔ 本频道已达到每日费用上限（{limit}），本次不再开始回答。上限于 UTC 00:00 重置，还有 {resetIn}。',
  'budget.refused.channel-tokens':
    '⛔ 本频道已达到每日 {limit} token 的上限，本次不再开始回答。上限于 UTC 00:00 重置，还有 {resetIn}。',
  'budget.refused.concurrent':
    '⏳ 你已有 {limit} 个回答正在进行（每人同时进行的上限），请等其中一个结束后再问。',
  'budget.unavailable': '⚠️ 暂时无法检查用量上限（存储不可用），因此不开始新的回答。请稍后再试。',
  'report.title': '*你的用量*（按 UTC 日计）',
  'report.today': '今天',
  'report.week': '7 天',
  'report.month': '30 天',
  'report.line': '{usd} · {tokens} token · {turns} 次回答',
  'report.chart': '最近 30 天每日费用（最高 {max}）：',
  'report.chart-tokens': '最近 30 天每日 token（最高 {max}）：',
  'report.limits': '每日上限：{limits}',
  'report.limit.user-usd': '每人 {limit}',
  'report.limit.user-tokens': '每人 {limit} token',
  'report.limit.channel-usd': '每频道 {limit}',
  'report.limit.channel-tokens': '每频道 {limit} token',
  'report.limit.concurrent': '同时 {limit} 个回答',
  'report.exempt': '你是管理员，不受这些上限限制。',
  'report.top-channels': '*用量最多的频道*（30 天）',
  'report.top-users': '*用量最多的用户*（30 天）',
  'report.top-models': '*用量最多的模型*（30 天）',
  'report.top-tools': '*调用最多的工具*（30 天）',
  'report.tool-calls': '{calls} 次调用',
  'report.none': '暂无',
  'report.unpriced': '没有价格的模型只计入 token 上限',
  'report.chart-alt': '最近 30 天每日费用柱状图',
  'report.unavailable': '⚠️ 暂时无法读取用量（存储不可用）。请稍后再试。',
  // Prompt caching (issue 28): input read from the provider's prompt cache, in the statistics.
  'stats.input-cached': '{input}（缓存 {cached}）',
  'stats.cached': '缓存读取',
  'stats.cache-write': '缓存写入',
  // The web chat (adapters/web): what its server answers a browser, said in the browser's language.
  'web.error.too-large': '太大了：最多 {size}。',
  'web.error.json-type': '请发送 JSON（Content-Type: application/json）。',
  'web.error.json-invalid': '请求内容不是有效的 JSON。',
  'web.error.json-object': '请求内容必须是一个 JSON 对象。',
  'web.error.csrf': '此请求缺少安全令牌：请刷新页面后重试。',
  'web.error.cross-site': '拒绝来自其他网站的请求。',
  'web.error.starting': 'Scout 正在启动：请稍后再试。',
  'web.error.restarting': 'Scout 正在重启：请稍后再发送。',
  'web.error.too-many-requests': '请求过多：请稍慢一些。',
  'web.error.too-many-streams': '此地址打开的标签页过多。',
  'web.error.not-found': '这里什么也没有。',
  'web.error.bad-request': 'Scout 无法理解此请求。',
  'web.error.log-in': '请先登录。',
  'web.error.sign-in-proxy': '请先通过所在组织的登录入口登录。',
  'web.error.internal': 'Scout 这边出了问题：请重试。',
  'web.error.no-conversation': '此对话不存在（或已被删除）。',
  'web.error.title': '标题长度为 1 到 {max} 个字符。',
  'web.error.empty-message': '请先输入问题。',
  'web.error.message-too-long': '消息太长：最多 {max} 个字符。',
  'web.error.too-many-files': '每条消息最多 {max} 个文件。',
  'web.error.file-gone': '有文件未上传（或已过期）：请重新添加。',
  'web.error.empty-file': '这个文件是空的。',
  'web.login.too-many': '尝试次数过多：请等一分钟再试。',
  'web.login.expired': '表单已过期：请重试。',
  'web.login.wrong': '密码错误。',
  'web.login.missing': '请输入你的名字和密码。',
  'web.settings.invalid': '部分设置无效。',
  'web.settings.mode': '模式：chat、agent 或 plan。',
  'web.settings.model': '{field}：应为 provider/model，例如 openai/gpt-4.1-mini。',
  'web.settings.number': '{field}：必须是数字。',
} as const satisfies Record<keyof typeof EN_FEATURES, string>;
