import { setMode, useMode } from '../lib/mode.ts';
import { navigate, type Tab } from '../lib/router.ts';

/** Test/live switch, on every view. Switching goes back to the tab's list: ids of one mode mean nothing in the other. */
export function ModeSwitch({ tab }: { tab: Tab | null }) {
  const mode = useMode();
  const test = mode === 'test';
  return (
    <button
      type="button"
      role="switch"
      aria-checked={test}
      className={test ? 'mode-switch mode-switch-on' : 'mode-switch'}
      onClick={() => {
        setMode(test ? 'live' : 'test');
        navigate(`/settings/developers/${tab ?? 'apps'}`, { replace: true });
      }}
    >
      <span className="mode-switch-track" aria-hidden="true">
        <span className="mode-switch-thumb" />
      </span>
      <span>Test mode</span>
    </button>
  );
}
