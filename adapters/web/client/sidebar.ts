/**
 * The conversation list: New chat, then each conversation as a link (#/c/<id>) with Rename and
 * Delete. Rename edits the title in place; Delete asks once, in place (no window.confirm: it blocks
 * the page and cannot be styled or translated).
 */
import { h } from './dom.js';
import type { ConversationSummary } from './protocol.js';
import { S } from './strings.js';

export interface SidebarActions {
  newChat(): void;
  rename(id: string, title: string): Promise<void>;
  remove(id: string): Promise<void>;
}

export const conversationHref = (id: string) => `#/c/${encodeURIComponent(id)}`;

export class Sidebar {
  readonly el: HTMLElement;
  private readonly list = h('ul', { class: 'conversations' });
  private items: ConversationSummary[] = [];
  private current: string | null = null;
  /** A row being renamed or asked about: list updates wait, so they do not wipe what is typed. */
  private busyRow = false;

  constructor(private readonly actions: SidebarActions) {
    const newChat = h('button', { type: 'button', class: 'new-chat primary' }, S.newChat);
    newChat.addEventListener('click', () => actions.newChat());
    this.el = h(
      'nav',
      { class: 'sidebar', id: 'sidebar', 'aria-label': S.conversations },
      newChat,
      h('h2', { class: 'sr-only' }, S.conversations),
      this.list,
    );
  }

  setConversations(items: ConversationSummary[]): void {
    this.items = items;
    if (!this.busyRow) this.draw();
  }

  setCurrent(id: string | null): void {
    this.current = id;
    for (const link of this.list.querySelectorAll<HTMLAnchorElement>('a.conversation')) {
      if (link.dataset['id'] === id) link.setAttribute('aria-current', 'page');
      else link.removeAttribute('aria-current');
    }
  }

  private draw(): void {
    this.busyRow = false;
    this.list.replaceChildren(...this.items.map((c) => this.row(c)));
  }

  private row(c: ConversationSummary): HTMLLIElement {
    const title = c.title || S.untitled;
    const link = h('a', { class: 'conversation', href: conversationHref(c.id), 'data-id': c.id }, title);
    if (c.id === this.current) link.setAttribute('aria-current', 'page');
    const titleId = `conv-title-${c.id}`;
    link.id = titleId;
    const rename = h(
      'button',
      { type: 'button', class: 'icon-button', 'aria-describedby': titleId, title: S.rename },
      S.rename,
    );
    const remove = h(
      'button',
      { type: 'button', class: 'icon-button danger', 'aria-describedby': titleId, title: S.delete },
      S.delete,
    );
    const tools = h('div', { class: 'row-tools' }, rename, remove);
    const li = h('li', { class: 'conversation-row' }, link, tools);
    rename.addEventListener('click', () => this.editTitle(li, c));
    remove.addEventListener('click', () => this.confirmDelete(li, c));
    return li;
  }

  private editTitle(li: HTMLLIElement, c: ConversationSummary): void {
    const input = h('input', {
      type: 'text',
      value: c.title,
      maxlength: '120',
      'aria-label': S.renameField,
      required: true,
    });
    const save = h('button', { type: 'submit', class: 'primary' }, S.renameSave);
    const cancel = h('button', { type: 'button' }, S.renameCancel);
    const form = h('form', { class: 'rename-form' }, input, h('div', { class: 'row-tools' }, save, cancel));
    const restore = () => {
      this.draw();
      this.list.querySelector<HTMLElement>(`a[data-id="${CSS.escape(c.id)}"]`)?.focus();
    };
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const title = input.value.trim();
      if (!title || title === c.title) return restore();
      save.disabled = true;
      this.actions.rename(c.id, title).then(restore, () => {
        save.disabled = false;
      });
    });
    cancel.addEventListener('click', restore);
    input.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') {
        event.preventDefault();
        restore();
      }
    });
    li.replaceChildren(form);
    this.busyRow = true;
    input.focus();
    input.select();
  }

  private confirmDelete(li: HTMLLIElement, c: ConversationSummary): void {
    const yes = h('button', { type: 'button', class: 'danger' }, S.deleteYes);
    const no = h('button', { type: 'button' }, S.deleteNo);
    const question = h(
      'p',
      { class: 'delete-question' },
      S.deleteConfirm,
      ' ',
      h('strong', {}, c.title || S.untitled),
    );
    no.addEventListener('click', () => {
      this.draw();
      this.list.querySelector<HTMLElement>(`a[data-id="${CSS.escape(c.id)}"]`)?.focus();
    });
    yes.addEventListener('click', () => {
      yes.disabled = true;
      this.actions.remove(c.id).then(
        () => this.draw(),
        () => {
          yes.disabled = false;
        },
      );
    });
    li.replaceChildren(
      h(
        'div',
        { class: 'delete-confirm', role: 'group', 'aria-label': S.deleteConfirm },
        question,
        h('div', { class: 'row-tools' }, yes, no),
      ),
    );
    this.busyRow = true;
    no.focus();
  }
}
