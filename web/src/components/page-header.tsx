import type { ReactNode } from 'react';
import { guideTitle, guideUrl, type GuideName } from '../lib/guides.ts';
import { Link } from './link.tsx';

interface Props {
  title: string;
  description?: ReactNode;
  back?: { to: string; label: string };
  actions?: ReactNode;
  /** The guide of what this page manages, linked under its description. */
  guide?: GuideName;
  /** The section of that guide this page is about (its heading's anchor). */
  guideAnchor?: string;
}

export function PageHeader({ title, description, back, actions, guide, guideAnchor }: Props) {
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
        {guide && (
          <p className="section-guide small">
            Guide: <a href={guideUrl(guide, guideAnchor)}>{guideTitle(guide)}</a>
          </p>
        )}
      </div>
      {actions && <div className="section-actions">{actions}</div>}
    </div>
  );
}
