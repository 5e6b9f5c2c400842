/**
 * The chat page: builds the layout, loads the session and the conversation list, and keeps one
 * event stream open for the conversation shown (PROTOCOL.md). `#/c/<id>` names that conversation,
 * so a reload or a shared link opens it again; with none, the page is an empty draft and the first
 * message creates the conversation.
 */
import { announcerElement } from './announcer.js';
import { ApiError, api, setCsrf } from './api.js';
import { Composer } from './composer.js';
import { h, show } from './dom.js';
import { openStream, type Stream } from './events.js';
import type { Conversation, ConversationSummary, Session } from './protocol.js';
import { SettingsDialog } from './settings-dialog.js';
import { conversationHref, Sidebar } from './sidebar.js';
import { locale, S } from './strings.js';
import { Transcript } from './transcript.js';

let session: Session | null = null;
let currentId: string | null = null;
let stream: Stream | null = null;
/** The list as last loaded (newest first). */
let conversations: ConversationSummary[] = [];
/** Bumped on every switch, so a late response for the previous conversation is dropped. */
let generation = 0;

const problemText = h('p', {});
const problemClose = h(
  'button',
  { type: 'button', class: 'icon-button', 'aria-label': S.close, title: S.close },
  '×',
);
const problemBox = h('div', { class: 'problem', role: 'alert' }, problemText, problemClose);
const connection = h('p', { class: 'connection', role: 'status' });

function problem(message: string): void {
  problemText.textContent = message;
  show(problemBox, true);
}
problemClose.addEventListener('click', () => show(problemBox, false));

const messageOf = (err: unknown) => (err instanceof Error ? err.message : S.failed);

const transcript = new Transcript(
  {
    async confirm(confirmId, accept) {
      if (!currentId) return;
      try {
        await api.send('POST', `/api/conversations/${encodeURIComponent(currentId)}/confirm`, {
          confirmId,
          accept,
        });
      } catch (err) {
        problem(messageOf(err));
        throw err;
      }
    },
  },
  () => refreshChatState(),
);

const composer = new Composer({
  async send(text, files) {
    show(problemBox, false);
    try {
      if (!currentId) {
        const created = await api.send<ConversationSummary>('POST', '/api/conversations', {});
        openConversation(created.id, false);
        void loadConversations();
      }
      const id = currentId!;
      await api.send(
        'POST',
        `/api/conversations/${encodeURIComponent(id)}/messages`,
        files.length > 0 ? { text, files } : { text },
      );
      // The first question titles the conversation. Its `conversations` event can come before this
      // conversation's stream is connected (a draft's first message), so an untitled one asks again.
      if (!conversations.find((c) => c.id === id)?.title) void loadConversations();
      return true;
    } catch (err) {
      problem(messageOf(err));
      return false;
    }
  },
  stop() {
    if (!currentId) return;
    api
      .send('POST', `/api/conversations/${encodeURIComponent(currentId)}/stop`)
      .catch((err) => problem(messageOf(err)));
  },
  problem,
});

const sidebar = new Sidebar({
  newChat() {
    void newChat();
  },
  async rename(id, title) {
    try {
      await api.send('PATCH', `/api/conversations/${encodeURIComponent(id)}`, { title });
      await loadConversations();
    } catch (err) {
      problem(messageOf(err));
      throw err;
    }
  },
  async remove(id) {
    try {
      await api.send('DELETE', `/api/conversations/${encodeURIComponent(id)}`);
      if (id === currentId) showDraft();
      await loadConversations();
    } catch (err) {
      problem(messageOf(err));
      throw err;
    }
  },
});

const settingsButton = h('button', { type: 'button', class: 'settings-button' }, S.settings);
const settings = new SettingsDialog([], () => {
  connection.textContent = S.saved;
});
settingsButton.addEventListener('click', () => {
  settings.open(settingsButton).catch((err) => problem(messageOf(err)));
});

const sidebarToggle = h(
  'button',
  { type: 'button', class: 'sidebar-toggle', 'aria-controls': 'sidebar', 'aria-expanded': 'false' },
  h('span', { 'aria-hidden': 'true' }, '☰ '),
  S.toggleSidebar,
);
const logoutButton = h('button', { type: 'button', class: 'logout' }, S.logOut);
const startersBox = h('section', { class: 'starters', 'aria-label': S.starters });
const appEl = h('div', { class: 'app' });

function setSidebarOpen(open: boolean): void {
  appEl.classList.toggle('sidebar-open', open);
  sidebarToggle.setAttribute('aria-expanded', String(open));
}
sidebarToggle.addEventListener('click', () => {
  const open = !appEl.classList.contains('sidebar-open');
  setSidebarOpen(open);
  if (open) sidebar.el.querySelector<HTMLElement>('button, a')?.focus();
});
const narrow = window.matchMedia('(max-width: 720px)');

logoutButton.addEventListener('click', () => {
  api.send('POST', '/logout').finally(() => location.assign('/login'));
});

/** Stop while a turn runs; starters while the chat is empty. */
function refreshChatState(): void {
  composer.setRunning(transcript.running() !== null);
  const starters = session?.starters ?? [];
  show(startersBox, transcript.empty && starters.length > 0);
}

function drawStarters(starters: string[]): void {
  startersBox.replaceChildren(
    h('h2', {}, S.starters),
    h(
      'div',
      { class: 'starter-buttons' },
      ...starters.map((text) => {
        const button = h('button', { type: 'button', class: 'starter' }, text);
        button.addEventListener('click', () => composer.sendText(text));
        return button;
      }),
    ),
  );
}

async function loadConversations(): Promise<void> {
  try {
    ({ conversations } = await api.get<{ conversations: ConversationSummary[] }>('/api/conversations'));
    sidebar.setConversations(conversations);
    const current = conversations.find((c) => c.id === currentId);
    document.title = current?.title ? `${current.title} · ${S.appName}` : S.appName;
  } catch (err) {
    problem(messageOf(err));
  }
}

function closeStream(): void {
  stream?.close();
  stream = null;
  show(connection, false);
}

/** Shows a conversation and follows its events; `load` fetches what it holds first. */
function openConversation(id: string, load = true): void {
  if (id === currentId && stream) return;
  closeStream();
  const mine = ++generation;
  currentId = id;
  sidebar.setCurrent(id);
  if (location.hash !== conversationHref(id)) location.hash = conversationHref(id);
  transcript.reset([], null);
  // The stream's first event is a snapshot (PROTOCOL.md), so the GET only fills the page when the
  // stream has said nothing yet, and finds a conversation that is gone (404). Once the stream has
  // spoken, its state is newer than the GET's and wins.
  let heard = false;
  const live = () => {
    heard = true;
    return mine === generation;
  };
  if (load) {
    api.get<Conversation>(`/api/conversations/${encodeURIComponent(id)}`).then(
      (c) => {
        if (mine === generation && !heard) transcript.reset(c.entries, c.turn);
      },
      (err: unknown) => {
        if (mine !== generation) return;
        problem(messageOf(err));
        if (err instanceof ApiError && err.status === 404) showDraft();
      },
    );
  }
  stream = openStream(id, {
    snapshot: (entries, turn) => live() && transcript.reset(entries, turn),
    user: (entry) => live() && transcript.add(entry),
    turn: (turn) => live() && transcript.upsertTurn(turn),
    patch: (patch) => live() && transcript.patch(patch),
    reply: (entry) => live() && transcript.add(entry),
    conversations: () => void loadConversations(),
    connected: (up) => {
      connection.textContent = up ? '' : S.connectionLost;
      show(connection, !up);
    },
  });
}

/** No conversation yet: the next message creates one. */
function showDraft(): void {
  closeStream();
  generation += 1;
  currentId = null;
  sidebar.setCurrent(null);
  if (location.hash) history.replaceState(null, '', location.pathname + location.search);
  transcript.reset([], null);
  document.title = S.appName;
}

async function newChat(): Promise<void> {
  try {
    const created = await api.send<ConversationSummary>('POST', '/api/conversations', {});
    openConversation(created.id, false);
    await loadConversations();
    if (narrow.matches) setSidebarOpen(false);
    composer.focus();
  } catch (err) {
    problem(messageOf(err));
  }
}

/** `#/c/<id>`, or a `/c/<id>` path the server served the page at. */
function idFromLocation(): string | null {
  const m = /^#\/c\/([^/?#]+)/.exec(location.hash) ?? /^\/c\/([^/?#]+)/.exec(location.pathname);
  return m ? decodeURIComponent(m[1]!) : null;
}

function layout(): void {
  document.documentElement.lang = locale === 'zh' ? 'zh-CN' : 'en';
  const main = h('main', { class: 'chat' }, connection, problemBox, startersBox, transcript.el, composer.el);
  appEl.append(
    h(
      'header',
      { class: 'topbar' },
      sidebarToggle,
      h('h1', {}, S.appName),
      h('div', { class: 'topbar-tools' }, settingsButton, logoutButton),
    ),
    h('div', { class: 'columns' }, sidebar.el, main),
    announcerElement(),
    settings.el,
  );
  show(problemBox, false);
  show(connection, false);
  show(logoutButton, false);
  document.body.replaceChildren(appEl);
  transcript.follow();
  // Choosing a conversation on a narrow screen hides the list again, to show the chat.
  sidebar.el.addEventListener('click', (event) => {
    if (narrow.matches && (event.target as Element).closest('a.conversation')) setSidebarOpen(false);
  });
}

async function start(): Promise<void> {
  layout();
  session = await api.session();
  setCsrf(session.csrf);
  composer.maxUploadBytes = session.maxUploadBytes || Number.POSITIVE_INFINITY;
  settings.setModels(session.models);
  show(logoutButton, session.auth === 'password' || session.auth === 'oidc');
  drawStarters(session.starters);
  window.addEventListener('hashchange', () => {
    const id = idFromLocation();
    if (id && id !== currentId) openConversation(id);
  });
  const id = idFromLocation();
  if (id) openConversation(id);
  else showDraft();
  await loadConversations();
  refreshChatState();
  composer.focus();
}

// A 401 is on its way to /login; if it was not sent there (a loop), the server's sentence shows.
start().catch((err: unknown) => problem(messageOf(err)));
