// What a guided lesson is: manifests it applies, then steps the learner takes with kubectl, each checked against the
// cluster state by polling the API.
import type { LessonApi } from './lesson-api.js';

export interface LessonContext {
  readonly api: LessonApi;
  /** Prints one line to the learner. */
  say(line: string): void;
}

export interface StepOutcome {
  done: boolean;
  /** Appended to the ✓ line when done (e.g. which pod, which revision). */
  detail?: string;
  /** A short description of where things stand; a change counts as progress (and is printed). */
  progress?: string;
}

export interface Step {
  /** Printed as "Step i/n: heading" when the step starts; a step without one continues the previous step. */
  heading?: string;
  /** What to do and what to look at, printed when the step starts. */
  instructions?(ctx: LessonContext): string[] | Promise<string[]>;
  /** Something the lesson does itself when the step starts (e.g. ships a broken release). */
  act?(ctx: LessonContext): Promise<void>;
  /** Polled about every 0.5 s until done. */
  check(ctx: LessonContext): Promise<StepOutcome>;
  /** The ✓ line. */
  ok: string;
  /** Printed when there has been no progress for a while. */
  hint: string;
}

export interface Lesson {
  readonly name: string;
  readonly title: string;
  /** Printed first: the story and what the lesson sets up. */
  readonly intro: string[];
  /** Removes what an earlier run left and applies the lesson's manifests. */
  setup(ctx: LessonContext): Promise<void>;
  readonly steps: Step[];
  /** Printed once every step is done. */
  readonly outro: string[];
}

/** A lesson module's export: a fresh lesson (with its own state) per run. */
export type LessonFactory = () => Lesson;
