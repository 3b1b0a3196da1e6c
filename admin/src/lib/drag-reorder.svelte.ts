// Reordering an ordered list by drag and drop (HTML5 drag events), beside the ↑/↓ buttons that keyboard users
// have: each item has a handle (`handle(i)`, spread on a grip element) and is a drop target (`target(i)`,
// spread on the item). Dropping item `from` on item `to` moves it to `to`'s place (after it when moving down,
// before it when moving up). Nested lists each keep their own drag: a list handles only the drags it started,
// so a drag inside an inner list never moves an outer item and the other way round.

export class DragReorder {
  /** The index being dragged, or null. */
  from = $state<number | null>(null);
  /** The index the drag is over (shown as the drop place), or null. */
  over = $state<number | null>(null);

  constructor(private readonly onmove: (from: number, to: number) => void) {}

  /** The attributes of an item's drag handle. */
  handle(index: number) {
    return {
      draggable: true as const,
      ondragstart: (e: DragEvent) => {
        e.stopPropagation();
        this.from = index;
        if (!e.dataTransfer) return;
        e.dataTransfer.effectAllowed = 'move';
        e.dataTransfer.setData('text/plain', String(index)); // some browsers start a drag only with data
        const item = (e.currentTarget as Element | null)?.closest('li');
        if (item) e.dataTransfer.setDragImage(item, 16, 16);
      },
      ondragend: () => this.reset(),
    };
  }

  /** The attributes of an item as a drop target. */
  target(index: number) {
    return {
      ondragover: (e: DragEvent) => {
        if (this.from === null) return; // not this list's drag: let an outer list see it
        e.preventDefault();
        e.stopPropagation();
        if (e.dataTransfer) e.dataTransfer.dropEffect = 'move';
        this.over = index;
      },
      ondrop: (e: DragEvent) => {
        if (this.from === null) return;
        e.preventDefault();
        e.stopPropagation();
        const from = this.from;
        this.reset();
        if (from !== index) this.onmove(from, index);
      },
    };
  }

  /** Where the dragged item would land, for a CSS class on the item: 'before', 'after' or ''. */
  dropAt(index: number): '' | 'before' | 'after' {
    if (this.from === null || this.over !== index || this.from === index) return '';
    return this.from > index ? 'before' : 'after';
  }

  private reset(): void {
    this.from = null;
    this.over = null;
  }
}

/** A copy of `list` with the item at `from` moved to `to`. */
export function moved<T>(list: readonly T[], from: number, to: number): T[] {
  const next = [...list];
  const [item] = next.splice(from, 1);
  next.splice(to, 0, item!);
  return next;
}
