import type { ReactNode } from 'react';
import type { ListPage } from '../lib/types.ts';

export interface PagerButton {
  label: string;
  onClick: () => void;
  disabled?: boolean;
}

interface Props {
  /** How many items there are, in words. */
  summary: ReactNode;
  /** Back toward the newest items, where the list has one. */
  back?: PagerButton;
  /** On to the next items, where the list has one. */
  forward?: PagerButton;
}

/** Under a list: how many items, and the buttons that page through them. */
export function Pager({ summary, back, forward }: Props) {
  return (
    <div className="pager">
      <span className="muted small">{summary}</span>
      {back && <PagerButtonView {...back} />}
      {forward && <PagerButtonView {...forward} />}
    </div>
  );
}

function PagerButtonView({ label, onClick, disabled }: PagerButton) {
  return (
    <button type="button" className="btn btn-small" disabled={disabled} onClick={onClick}>
      {label}
    </button>
  );
}

/**
 * Previous and Next over a stack of cursors (the last one is the page shown): Previous drops it, Next pushes
 * the page's own.
 */
export function cursorButtons(
  page: ListPage<unknown>,
  cursors: readonly string[],
  setCursors: (cursors: string[]) => void,
): { back: PagerButton; forward: PagerButton } {
  return {
    back: {
      label: 'Previous',
      disabled: cursors.length === 0,
      onClick: () => setCursors(cursors.slice(0, -1)),
    },
    forward: nextPage(page, 'Next', (cursor) => setCursors([...cursors, cursor])),
  };
}

/** The button to the page after `page`, by its cursor: disabled on the last page. */
export function nextPage(page: ListPage<unknown>, label: string, go: (cursor: string) => void): PagerButton {
  const cursor = page.has_more ? page.next_cursor : null;
  return { label, disabled: !cursor, onClick: () => cursor && go(cursor) };
}
