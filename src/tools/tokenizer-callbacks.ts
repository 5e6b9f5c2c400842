/**
 * htmlparser2's bare Tokenizer (linear, no element stack) calls back for every kind of token; a
 * reader extends this and overrides only the tokens it needs.
 */
import type { TokenizerCallbacks } from 'htmlparser2';

export class IgnoredTokens implements TokenizerCallbacks {
  onattribdata(_start: number, _end: number): void {}
  onattribentity(_codepoint: number): void {}
  onattribend(_quote: number, _end: number): void {}
  onattribname(_start: number, _end: number): void {}
  oncdata(_start: number, _end: number, _endOffset: number): void {}
  onclosetag(_start: number, _end: number): void {}
  oncomment(_start: number, _end: number, _endOffset: number): void {}
  ondeclaration(_start: number, _end: number): void {}
  onend(): void {}
  onopentagend(_end: number): void {}
  onopentagname(_start: number, _end: number): void {}
  onprocessinginstruction(_start: number, _end: number): void {}
  onselfclosingtag(_end: number): void {}
  ontext(_start: number, _end: number): void {}
  ontextentity(_codepoint: number, _endIndex: number): void {}
}
