/**
 * English strings (catalog in strings.ts): one commented block per feature added later (memory, instructions, limits and /usage, prompt
 * caching). New keys go in a block of their own at the END of this table, so that branches adding
 * keys at the same time merge cleanly.
 */
export const EN_FEATURES = {
  // Conversation memory (src/core/conversation-memory.ts, /memory): long histories folded into a summary.
  'command.memory': 'Show the summary of this conversation’s earlier messages; `clear` forgets it',
  'option.memory': 'What to do with the summary',
  'choice.memory-clear': 'Clear it',
  'memory.summarising': 'Summarising {count, plural, one {# earlier message} other {# earlier messages}}…',
  'memory.summarised': 'Summarised {count, plural, one {# earlier message} other {# earlier messages}}',
  'memory.failed':
    'Could not summarise the earlier messages, so they were left out of this answer; Scout will try again on the next one.',
  'memory.not-saved':
    'The summary of earlier messages was not saved: Scout’s storage is unavailable, so it is used for this answer only.',
  'memory.show':
    '*Summary of {count, plural, one {# earlier message} other {# earlier messages}}* (updated {date}):\n{text}',
  'memory.empty': 'No summary yet: this conversation still fits the model’s context window.',
  'memory.cleared': '🧹 The summary of earlier messages was cleared; the recent messages are kept.',
  'memory.no-conversation':
    'This command needs a conversation: write `@Scout memory` in the thread whose memory you want to see.',
  // ── Instructions (/instructions, SCOUT_INSTRUCTIONS; src/core/instructions.ts) ──
  'command.instructions':
    'Show or set this channel’s instructions for Scout (language, tone, sources); `clear` removes them',
  'option.instructions': 'What Scout should know or do here (answer in French, our product is …), or clear',
  'instructions.where.channel': 'this channel',
  'instructions.where.terminal': 'this terminal chat',
  'instructions.none':
    'No instructions are set for {where}. `/instructions <text>` sets some: the language to answer in, the tone, your product, the sources to prefer.',
  'instructions.show.own':
    '*Instructions for {where}* ({chars, plural, one {# character} other {# characters}}):',
  'instructions.show.default':
    '*Default instructions* (SCOUT_INSTRUCTIONS; {where} has none of its own, {chars, plural, one {# character} other {# characters}}):',
  'instructions.how':
    'They go into every mode’s prompt after Scout’s own rules, which they cannot change. `/instructions <text>` replaces them, `/instructions clear` removes them.',
  'instructions.set':
    '✅ Instructions saved for {where} ({chars, plural, one {# character} other {# characters}}). They apply from the next message, in every mode, after Scout’s own rules.',
  'instructions.cut':
    '✂️ They were cut to {max, plural, one {# character} other {# characters}} ({cut, plural, one {# character} other {# characters}} left out).',
  'instructions.cleared': '🧹 The instructions for {where} were removed.',
  'instructions.cleared-default':
    '🧹 The instructions for {where} were removed; the default instructions (SCOUT_INSTRUCTIONS) apply again.',
  'instructions.nothing-to-clear': 'Nothing to remove: {where} has no instructions of its own.',
  'instructions.empty':
    'Those instructions are empty once control characters are removed; nothing was saved.',
  'instructions.looks-like-secret':
    'These instructions look like they hold an API key or token, so they were not saved and are not shown here; if it is a real key, revoke it and create a new one.',
  'config.instructions': 'Instructions',
  'config.instructions.none': 'none (`/instructions <text>` sets them)',
  'config.instructions.channel':
    'set here ({chars, plural, one {# character} other {# characters}}): {preview}',
  'config.instructions.default':
    'the SCOUT_INSTRUCTIONS default ({chars, plural, one {# character} other {# characters}}): {preview}',
  'home.instructions': '📝 Instructions (`/instructions <text>` sets them)',
  'home.instructions-none': 'None of its own; `/config` says whether a default applies.',
  // ── Limits and /usage (src/budget) ──
  'command.usage':
    'Your usage (today, 7 and 30 days); admins also see the top channels, users, models and tools',
  'budget.refused.user-usd':
    '⛔ You have reached your daily spending limit ({limit} per person), so I am not starting this answer. The limit resets at 00:00 UTC, in {resetIn}.',
  'budget.refused.user-tokens':
    '⛔ You have reached your daily limit of {limit, plural, one {# token} other {# tokens}} per person, so I am not starting this answer. The limit resets at 00:00 UTC, in {resetIn}.',
  'budget.refused.channel-usd':
    '⛔ This channel has reached its daily spending limit ({limit}), so I am not starting this answer. The limit resets at 00:00 UTC, in {resetIn}.',
  'budget.refused.channel-tokens':
    '⛔ This channel has reached its daily limit of {limit, plural, one {# token} other {# tokens}}, so I am not starting this answer. The limit resets at 00:00 UTC, in {resetIn}.',
  'budget.refused.concurrent':
    '⏳ You already have {limit, plural, one {# answer} other {# answers}} running (the most at once per person). Ask again when one has finished.',
  'budget.unavailable':
    '⚠️ I cannot check the usage limits right now (the store is unreachable), so I am not starting new answers. Try again in a minute.',
  'report.title': '*Your usage* (UTC days)',
  'report.today': 'Today',
  'report.week': '7 days',
  'report.month': '30 days',
  'report.line':
    '{usd} · {tokens, plural, one {# token} other {# tokens}} · {turns, plural, one {# answer} other {# answers}}',
  'report.chart': 'Spend per day, last 30 days (max {max}):',
  'report.chart-tokens': 'Tokens per day, last 30 days (max {max}):',
  'report.limits': 'Daily limits: {limits}',
  'report.limit.user-usd': '{limit} per person',
  'report.limit.user-tokens': '{limit, plural, one {# token} other {# tokens}} per person',
  'report.limit.channel-usd': '{limit} per channel',
  'report.limit.channel-tokens': '{limit, plural, one {# token} other {# tokens}} per channel',
  'report.limit.concurrent': '{limit, plural, one {# answer} other {# answers}} at once',
  'report.exempt': 'As an admin you are not held to them.',
  'report.top-channels': '*Top channels* (30 days)',
  'report.top-users': '*Top users* (30 days)',
  'report.top-models': '*Top models* (30 days)',
  'report.top-tools': '*Top tools* (30 days)',
  'report.tool-calls': '{calls, plural, one {# call} other {# calls}}',
  'report.none': 'nothing yet',
  'report.unpriced': 'tokens of models without a price count toward token limits only',
  'report.chart-alt': 'Bar chart of spend per day over the last 30 days',
  'report.unavailable': '⚠️ Usage cannot be read right now (the store is unreachable). Try again in a minute.',
  // Prompt caching (issue 28): input read from the provider's prompt cache, in the statistics.
  'stats.input-cached': '{input} ({cached} cached)',
  'stats.cached': 'cached',
  'stats.cache-write': 'cache write',
  // The web chat (adapters/web): what its server answers a browser, said in the browser's language.
  'web.error.too-large': 'That is too large: at most {size}.',
  'web.error.json-type': 'Send JSON (Content-Type: application/json).',
  'web.error.json-invalid': 'The request body is not valid JSON.',
  'web.error.json-object': 'The request body must be a JSON object.',
  'web.error.csrf': 'This request lacks its security token: reload the page and try again.',
  'web.error.cross-site': 'Requests from another site are refused.',
  'web.error.starting': 'Scout is starting: try again in a moment.',
  'web.error.restarting': 'Scout is restarting: send it again in a moment.',
  'web.error.too-many-requests': 'Too many requests: slow down a little.',
  'web.error.too-many-streams': 'Too many open tabs from this address.',
  'web.error.not-found': 'There is nothing here.',
  'web.error.bad-request': 'This request is not one Scout understands.',
  'web.error.log-in': 'Log in first.',
  'web.error.sign-in-proxy': 'Sign in through your organisation’s login first.',
  'web.error.internal': 'Something went wrong on Scout’s side: try again.',
  'web.error.no-conversation': 'This conversation does not exist (or was deleted).',
  'web.error.title': 'A title is 1 to {max} characters.',
  'web.error.empty-message': 'Type a question first.',
  'web.error.message-too-long': 'That message is too long: at most {max} characters.',
  'web.error.too-many-files': 'At most {max, plural, one {# file} other {# files}} a message.',
  'web.error.file-gone': 'A file was not uploaded (or expired): attach it again.',
  'web.error.empty-file': 'That file is empty.',
  'web.login.too-many': 'Too many attempts: wait a minute and try again.',
  'web.login.expired': 'The form expired: try again.',
  'web.login.wrong': 'Wrong password.',
  'web.login.missing': 'Enter your name and the password.',
  'web.settings.invalid': 'Some settings are not valid.',
  'web.settings.mode': 'Mode: chat, agent or plan.',
  'web.settings.model': '{field}: expected provider/model, e.g. openai/gpt-4.1-mini.',
  'web.settings.number': '{field}: must be a number.',
} as const;
