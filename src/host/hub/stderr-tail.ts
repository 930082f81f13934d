/**
 * The last lines a server wrote to stderr, for diagnosis. A line still
 * being written (no newline yet) counts too: a crash message often has none.
 */
export class StderrTail {
  private readonly kept: string[] = [];
  private partial = '';

  constructor(
    private readonly maxLines = 50,
    private readonly maxLineChars = 1000,
  ) {}

  push(text: string): void {
    const parts = (this.partial + text).split('\n');
    this.partial = parts.pop() ?? '';
    // A line never written to the end must not grow without bound either.
    if (this.partial.length > this.maxLineChars) {
      parts.push(this.partial);
      this.partial = '';
    }
    for (const line of parts) this.keep(line.replace(/\r$/, ''));
  }

  lines(): string[] {
    const lines = [...this.kept];
    if (this.partial !== '') lines.push(this.clip(this.partial));
    return lines.slice(-this.maxLines);
  }

  private keep(line: string): void {
    this.kept.push(this.clip(line));
    if (this.kept.length > this.maxLines) this.kept.splice(0, this.kept.length - this.maxLines);
  }

  private clip(line: string): string {
    return line.length <= this.maxLineChars ? line : `${line.slice(0, this.maxLineChars)}... [${line.length - this.maxLineChars} more]`;
  }
}
