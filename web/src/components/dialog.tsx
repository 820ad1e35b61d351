import { useEffect, useRef, type ReactNode } from 'react';

const FOCUSABLE = 'a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex="-1"])';

interface Props {
  title: string;
  onClose: () => void;
  children: ReactNode;
  /** A dialog that must be acknowledged (a secret shown once) does not close on Escape. */
  dismissable?: boolean;
  wide?: boolean;
}

/**
 * The native modal dialog: showModal() makes the rest of the page inert, so focus stays inside, and the
 * browser returns focus to the opener on close.
 */
export function Dialog({ title, onClose, children, dismissable = true, wide = false }: Props) {
  const ref = useRef<HTMLDialogElement>(null);
  const closeRef = useRef(onClose);
  closeRef.current = onClose;

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const opener = document.activeElement as HTMLElement | null;
    if (!dialog.open) dialog.showModal();
    return () => {
      dialog.close();
      if (opener && opener.isConnected) opener.focus();
    };
  }, []);

  return (
    <dialog
      ref={ref}
      className={wide ? 'dialog dialog-wide' : 'dialog'}
      aria-labelledby="dialog-title"
      onKeyDown={(e) => {
        if (e.key !== 'Tab' || !ref.current) return;
        // The modal makes the page inert, but Tab past the last control would leave for the browser's own
        // toolbar: wrap around instead, so keyboard focus stays in the dialog.
        const items = [...ref.current.querySelectorAll<HTMLElement>(FOCUSABLE)].filter(
          (el) => !el.hasAttribute('disabled'),
        );
        const first = items[0];
        const last = items[items.length - 1];
        if (!first || !last) return;
        if (e.shiftKey && document.activeElement === first) {
          e.preventDefault();
          last.focus();
        } else if (!e.shiftKey && document.activeElement === last) {
          e.preventDefault();
          first.focus();
        }
      }}
      onCancel={(e) => {
        e.preventDefault();
        if (dismissable) closeRef.current();
      }}
    >
      <h2 id="dialog-title" className="dialog-title">
        {title}
      </h2>
      {children}
    </dialog>
  );
}
