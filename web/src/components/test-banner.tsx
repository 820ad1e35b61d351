export function TestBanner() {
  return (
    <div className="test-banner" role="note" aria-label="Test mode">
      <strong>Test mode</strong>
      <span>You are viewing test data. Test keys, apps and webhooks never touch live data.</span>
    </div>
  );
}
