/**
 * The message box: a textarea named "Message" (Enter sends, Shift+Enter adds a line, nothing sends
 * mid-IME-composition), "Attach file" (each file uploads at once to POST /api/uploads and shows as a
 * chip with Remove), Send (disabled while empty or uploading) and Stop (while a turn runs).
 */
import { api } from './api.js';
import { h, show, uid } from './dom.js';
import { S } from './strings.js';

export interface ComposerActions {
  /** Resolves true when the message was accepted (the box is then cleared). */
  send(text: string, files: string[]): Promise<boolean>;
  stop(): void;
  /** A problem for the user (an upload too large or refused). */
  problem(message: string): void;
}

interface Attachment {
  name: string;
  id?: string;
  chip: HTMLLIElement;
}

// Images, PDFs and text: what the server's context pipeline reads.
const ACCEPT =
  'image/*,application/pdf,text/*,.md,.markdown,.csv,.tsv,.json,.yaml,.yml,.xml,.html,.log,.ts,.js,.py';

export class Composer {
  readonly el: HTMLFormElement;
  readonly textarea: HTMLTextAreaElement;
  private readonly sendButton = h('button', { type: 'submit', class: 'send primary' }, S.send);
  private readonly stopButton = h('button', { type: 'button', class: 'stop danger' }, S.stop);
  private readonly fileInput: HTMLInputElement;
  private readonly chips = h('ul', { class: 'chips', 'aria-label': S.attachments });
  private attachments: Attachment[] = [];
  private sending = false;
  maxUploadBytes = Number.POSITIVE_INFINITY;

  constructor(private readonly actions: ComposerActions) {
    const messageId = uid('message');
    const fileId = uid('attach');
    this.textarea = h('textarea', {
      id: messageId,
      rows: '1',
      placeholder: S.messagePlaceholder,
      autocomplete: 'off',
    });
    this.fileInput = h('input', {
      id: fileId,
      type: 'file',
      class: 'sr-only file-input',
      multiple: true,
      accept: ACCEPT,
    });
    const attachLabel = h(
      'label',
      { for: fileId, class: 'attach button-like', title: S.attachFile },
      h('span', { 'aria-hidden': 'true' }, '📎'),
      h('span', { class: 'sr-only' }, S.attachFile),
    );
    this.el = h(
      'form',
      { class: 'composer' },
      h('label', { for: messageId, class: 'sr-only' }, S.message),
      this.chips,
      h(
        'div',
        { class: 'composer-row' },
        this.fileInput,
        attachLabel,
        this.textarea,
        this.stopButton,
        this.sendButton,
      ),
    );
    show(this.stopButton, false);
    show(this.chips, false);

    this.textarea.addEventListener('input', () => {
      this.autosize();
      this.refresh();
    });
    this.textarea.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && !event.shiftKey && !event.isComposing && event.keyCode !== 229) {
        event.preventDefault();
        this.el.requestSubmit();
      }
    });
    this.el.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.submit();
    });
    this.stopButton.addEventListener('click', () => actions.stop());
    this.fileInput.addEventListener('change', () => {
      for (const file of this.fileInput.files ?? []) this.attach(file);
      this.fileInput.value = '';
    });
    this.refresh();
  }

  /** Shows Stop while a turn runs. */
  setRunning(running: boolean): void {
    show(this.stopButton, running);
  }

  /** Puts text in the box and sends it (a starter button). */
  sendText(text: string): void {
    this.textarea.value = text;
    this.refresh();
    void this.submit();
  }

  focus(): void {
    this.textarea.focus();
  }

  private get uploading(): boolean {
    return this.attachments.some((a) => !a.id);
  }

  private refresh(): void {
    this.sendButton.disabled = this.sending || this.uploading || this.textarea.value.trim() === '';
    show(this.chips, this.attachments.length > 0);
  }

  private autosize(): void {
    this.textarea.style.height = 'auto';
    this.textarea.style.height = `${Math.min(this.textarea.scrollHeight, 240)}px`;
  }

  private async submit(): Promise<void> {
    const text = this.textarea.value.trim();
    if (!text || this.sending || this.uploading) return;
    this.sending = true;
    this.refresh();
    try {
      const ok = await this.actions.send(
        text,
        this.attachments.map((a) => a.id!),
      );
      if (ok) {
        this.textarea.value = '';
        this.attachments = [];
        this.chips.replaceChildren();
        this.autosize();
      }
    } finally {
      this.sending = false;
      this.refresh();
    }
  }

  private attach(file: File): void {
    if (file.size > this.maxUploadBytes) {
      this.actions.problem(`${file.name} ${S.tooLarge}`);
      return;
    }
    const status = h('span', { class: 'chip-status' }, S.uploading);
    const remove = h(
      'button',
      { type: 'button', class: 'chip-remove', 'aria-label': `${S.remove} ${file.name}`, title: S.remove },
      '×',
    );
    const chip = h(
      'li',
      { class: 'chip uploading' },
      h('span', { class: 'chip-name' }, file.name),
      status,
      remove,
    );
    const attachment: Attachment = { name: file.name, chip };
    this.attachments.push(attachment);
    this.chips.append(chip);
    const drop = () => {
      this.attachments = this.attachments.filter((a) => a !== attachment);
      chip.remove();
      this.refresh();
    };
    remove.addEventListener('click', () => {
      drop();
      this.textarea.focus();
    });
    this.refresh();
    api.upload(file).then(
      (upload) => {
        if (!this.attachments.includes(attachment)) return; // removed while uploading
        attachment.id = upload.id;
        chip.classList.remove('uploading');
        status.remove();
        this.refresh();
      },
      (err: unknown) => {
        drop();
        this.actions.problem(`${file.name}: ${err instanceof Error ? err.message : S.failed}`);
      },
    );
  }
}
