import { useState } from 'react';
import { api } from '../lib/api.ts';
import { GraceDialog } from './grace-dialog.tsx';
import { SecretDialog } from './secret-dialog.tsx';

interface Props<K extends string, T extends { [P in K]?: string }> {
  /** The resource whose secret turns: `${path}/rotate-secret` answers it with the new secret in `field`. */
  path: string;
  field: K;
  title: string;
  intro: string;
  defaultSeconds: number;
  /** The title of the dialog that shows the new secret once, and the secret's name in it. */
  shownTitle: string;
  shownLabel: string;
  /** The rotated resource, without its secret: the page keeps no secret in its state. */
  onRotated: (rotated: T) => void;
  onClose: () => void;
}

/** Rotating a resource's secret: how long the old one keeps working, then the new one, shown once. */
export function RotateSecretDialog<K extends string, T extends { [P in K]?: string }>({
  path,
  field,
  title,
  intro,
  defaultSeconds,
  shownTitle,
  shownLabel,
  onRotated,
  onClose,
}: Props<K, T>) {
  const [secret, setSecret] = useState<string | null>(null);
  if (secret !== null) {
    return (
      <SecretDialog title={shownTitle} secrets={[{ label: shownLabel, value: secret }]} onDone={onClose} />
    );
  }
  return (
    <GraceDialog
      title={title}
      intro={intro}
      question="The old secret stops working"
      confirmLabel="Rotate secret"
      defaultSeconds={defaultSeconds}
      onClose={onClose}
      onConfirm={async (seconds) => {
        const rotated = await api<T>('POST', `${path}/rotate-secret`, {
          previous_secret_expires_in: seconds,
        });
        onRotated({ ...rotated, [field]: undefined });
        setSecret(rotated[field] ?? '');
      }}
    />
  );
}
