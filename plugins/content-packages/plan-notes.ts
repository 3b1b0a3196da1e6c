import type { PlanDraft } from '../data-ops/public.js';

/** Listed individually at most; the rest is counted in one line. */
const MAX_NOTES = 100;

export class Notes {
  warnings: PlanDraft['warnings'] = [];
  blocked: string[] = [];
  private moreWarnings = 0;
  private moreBlocked = 0;
  /** `conflict`: the two sides of a conflict (content sync shows them to people choosing one). */
  warn(message: string, item?: string, conflict?: object) {
    if (this.warnings.length < MAX_NOTES) this.warnings.push(item ? { message, item, ...(conflict ? { conflict } : {}) } : { message });
    else this.moreWarnings++;
  }
  /** Whether the next warning is listed (not only counted). */
  room(): boolean {
    return this.warnings.length < MAX_NOTES;
  }
  block(reason: string) {
    if (this.blocked.length < MAX_NOTES) this.blocked.push(reason);
    else this.moreBlocked++;
  }
  close() {
    if (this.moreWarnings) this.warnings.push({ message: `... and ${this.moreWarnings} more warnings` });
    if (this.moreBlocked) this.blocked.push(`... and ${this.moreBlocked} more blocked reasons`);
  }
}
