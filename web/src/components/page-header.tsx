import type { ReactNode } from 'react';
import { Link } from './link.tsx';

interface Props {
  title: string;
  description?: ReactNode;
  back?: { to: string; label: string };
  actions?: ReactNode;
}

export function PageHeader({ title, description, back, actions }: Props) {
  return (
    <div className="section-header">
      <div>
        {back && (
          <Link className="back" to={back.to}>
            ← {back.label}
          </Link>
        )}
        <h2 className="section-title" id="section-title">
          {title}
        </h2>
        {description && <p className="muted section-description">{description}</p>}
      </div>
      {actions && <div className="section-actions">{actions}</div>}
    </div>
  );
}
