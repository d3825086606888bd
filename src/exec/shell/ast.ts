// The syntax tree of the simulated shell: a POSIX sh subset (lists, and-or chains, pipelines, simple commands
// with assignments and redirections, if/for/while/until, brace groups and subshells).

/** One piece of a word, before expansion. `quoted` pieces are not field-split. */
export type WordPart =
  | { t: 'lit'; v: string; quoted: boolean }
  | { t: 'var'; name: string; op?: ':-' | '-' | ':=' | '=' | ':+' | '+' | '#'; arg?: Word; quoted: boolean }
  | { t: 'sub'; src: string; quoted: boolean }
  | { t: 'arith'; src: string; quoted: boolean };

export type Word = WordPart[];

export interface Redir {
  /** File descriptor redirected (1 for `>`, 0 for `<`). */
  fd: number;
  op: '>' | '>>' | '<' | '>&';
  target: Word;
}

export type Command =
  | { t: 'simple'; assigns: { name: string; value: Word }[]; words: Word[]; redirs: Redir[] }
  | { t: 'if'; clauses: { cond: List; body: List }[]; otherwise?: List; redirs: Redir[] }
  | { t: 'for'; name: string; items?: Word[]; body: List; redirs: Redir[] }
  | { t: 'while'; until: boolean; cond: List; body: List; redirs: Redir[] }
  | { t: 'group'; subshell: boolean; body: List; redirs: Redir[] };

export interface Pipeline {
  bang: boolean;
  cmds: Command[];
}

export interface AndOr {
  first: Pipeline;
  rest: { op: '&&' | '||'; p: Pipeline }[];
}

export interface List {
  items: AndOr[];
}
