// Runs in the page's own world before its scripts, in every document of the tab.
// A page that sends itself to another address while it loads (a head script
// "upgrading" to https, or moving to its canonical host) cannot leave the tab: the
// request would be refused. But once such a navigation has started, Chromium stops
// parsing the page, which then never loads: the render would hang to its deadline
// and measure an empty head. Cancelling the navigation before it starts (the
// Navigation API's `navigate` event) keeps the page parsing, as it would be read
// where it was served. Navigations inside the render's origin go ahead.
(() => {
  if (!window.navigation) return;
  navigation.addEventListener('navigate', (event) => {
    if (event.cancelable && new URL(event.destination.url).origin !== location.origin) {
      event.preventDefault();
    }
  });
})();
