import { Link } from '../../components/link.tsx';

/** OAuth Apps holds two lists: the apps this merchant built, and the apps installed on its store. */
export function AppsSubnav({ current }: { current: 'apps' | 'connections' }) {
  return (
    <nav aria-label="OAuth apps" className="subnav">
      <Link
        to="/settings/developers/apps"
        className={current === 'apps' ? 'subnav-item subnav-current' : 'subnav-item'}
        aria-current={current === 'apps' ? 'page' : undefined}
      >
        Your apps
      </Link>
      <Link
        to="/settings/developers/connected-apps"
        className={current === 'connections' ? 'subnav-item subnav-current' : 'subnav-item'}
        aria-current={current === 'connections' ? 'page' : undefined}
      >
        Connected apps
      </Link>
    </nav>
  );
}
