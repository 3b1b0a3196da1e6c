import type { PlanDraft } from '../data-ops/public.js';

/** Listed individually at most; the rest is counted in one line. */
const MAX_NOTES = 100;

export class Notes {
  warnings: PlanDraft['warnings'] = [];
  blocked: string[] = [];
  private moreWarnings = 0;
  private moreBlocked = 0;
  warn(message: string, item?: string) {
    if (this.warnings.length < MAX_NOTES) this.warnings.push(item ? { message, item } : { message });
    else this.moreWarnings++;
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
