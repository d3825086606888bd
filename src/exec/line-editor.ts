// A terminal line editor as a shell in a TTY gives it: echo, backspace, Ctrl-U, Ctrl-C, Ctrl-D, Ctrl-A/E,
// left/right arrows, up/down history. It consumes characters and returns what to echo and what happened.

export const maxLineChars = 4096;
const maxHistory = 100;

export type EditorEvent = { t: 'line'; line: string } | { t: 'eof' } | { t: 'interrupt' } | { t: 'clear' };

export class LineEditor {
  private line = '';
  private cursor = 0;
  private esc = '';
  private lastCR = false;
  private readonly history: string[] = [];
  private histPos = 0;
  constructor(private readonly echo: (s: string) => void, private readonly prompt: () => string) {}

  /** Characters typed so far on the current line (for tests). */
  current(): string {
    return this.line;
  }

  private redrawTail(extraBlank = 0): void {
    const tail = this.line.slice(this.cursor);
    this.echo(tail + ' '.repeat(extraBlank) + '\b'.repeat(tail.length + extraBlank));
  }

  private replaceLine(next: string): void {
    this.echo(`\r${this.prompt()}${next}\x1b[K`);
    this.line = next;
    this.cursor = next.length;
  }

  /** Feeds one character (a code point); returns an event when one completes. */
  feed(ch: string): EditorEvent | undefined {
    if (this.esc) return this.escape(ch);
    const wasCR = this.lastCR;
    this.lastCR = ch === '\r';
    if (ch === '\n' && wasCR) return undefined;
    switch (ch) {
      case '\n':
      case '\r': {
        this.echo('\r\n');
        const line = this.line;
        if (line.trim() && this.history[this.history.length - 1] !== line) {
          this.history.push(line);
          if (this.history.length > maxHistory) this.history.shift();
        }
        this.histPos = this.history.length;
        this.line = '';
        this.cursor = 0;
        return { t: 'line', line };
      }
      case '\x7f':
      case '\b':
        if (this.cursor > 0) {
          this.line = this.line.slice(0, this.cursor - 1) + this.line.slice(this.cursor);
          this.cursor--;
          this.echo('\b');
          this.redrawTail(1);
        }
        return undefined;
      case '\x15':
        this.line = this.line.slice(this.cursor);
        this.cursor = 0;
        this.echo(`\r${this.prompt()}${this.line}\x1b[K`);
        this.echo('\b'.repeat(this.line.length));
        return undefined;
      case '\x03':
        this.echo('^C\r\n');
        this.line = '';
        this.cursor = 0;
        return { t: 'interrupt' };
      case '\x04':
        if (this.line === '') return { t: 'eof' };
        return undefined;
      case '\x01':
        this.echo('\b'.repeat(this.cursor));
        this.cursor = 0;
        return undefined;
      case '\x05':
        this.echo(this.line.slice(this.cursor));
        this.cursor = this.line.length;
        return undefined;
      case '\x0c':
        this.echo(`\x1b[H\x1b[J${this.prompt()}${this.line}${'\b'.repeat(this.line.length - this.cursor)}`);
        return undefined;
      case '\x1b':
        this.esc = ch;
        return undefined;
    }
    if (ch < ' ' || ch === '\x7f') return undefined;
    if (this.line.length >= maxLineChars) {
      this.echo('\x07');
      return undefined;
    }
    this.line = this.line.slice(0, this.cursor) + ch + this.line.slice(this.cursor);
    this.cursor++;
    this.echo(ch);
    if (this.cursor < this.line.length) this.redrawTail();
    return undefined;
  }

  private escape(ch: string): EditorEvent | undefined {
    this.esc += ch;
    if (this.esc.length === 2) {
      if (ch === '[' || ch === 'O') return undefined;
      this.esc = '';
      return undefined;
    }
    if (!/[A-Za-z~]/.test(ch)) {
      if (this.esc.length > 8) this.esc = '';
      return undefined;
    }
    const seq = this.esc.slice(2);
    this.esc = '';
    if (seq === 'D' && this.cursor > 0) {
      this.cursor--;
      this.echo('\x1b[D');
    } else if (seq === 'C' && this.cursor < this.line.length) {
      this.cursor++;
      this.echo('\x1b[C');
    } else if (seq === 'A' && this.histPos > 0) this.replaceLine(this.history[--this.histPos]);
    else if (seq === 'B' && this.histPos < this.history.length) {
      this.histPos++;
      this.replaceLine(this.history[this.histPos] ?? '');
    } else if (seq === 'H' || seq === '1~') {
      this.echo('\b'.repeat(this.cursor));
      this.cursor = 0;
    } else if (seq === 'F' || seq === '4~') {
      this.echo(this.line.slice(this.cursor));
      this.cursor = this.line.length;
    } else if (seq === '3~' && this.cursor < this.line.length) {
      this.line = this.line.slice(0, this.cursor) + this.line.slice(this.cursor + 1);
      this.redrawTail(1);
    }
    return undefined;
  }
}
