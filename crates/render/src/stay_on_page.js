// Runs in the page's own world before its scripts, in every document of the tab.
// A page that sends itself to another address while it loads (a head script
// "upgrading" to https, moving to its canonical host, or submitting a form there)
// cannot leave the tab: the request would be refused. But once such a navigation
// has started, Chromium stops parsing the page, which then never loads: the render
// would hang to its deadline and measure an empty head. Cancelling the navigation
// before it starts (the Navigation API's `navigate` event) keeps the page parsing,
// as it would be read where it was served. A form submitted by script stops the
// parser even when its navigation is cancelled, so a submission to another origin
// is not made at all. Navigations inside the render's origin go ahead.
(() => {
  const elsewhere = (url) => new URL(url, location.href).origin !== location.origin;
  if (window.navigation) {
    navigation.addEventListener('navigate', (event) => {
      if (event.cancelable && elsewhere(event.destination.url)) event.preventDefault();
    });
  }
  // A form submitted by a click or requestSubmit() fires `submit` first; one submitted
  // by submit() fires nothing, so that method is wrapped. (A button's formAction is
  // the document's own address unless the button names one.)
  window.addEventListener('submit', (event) => {
    const button = event.submitter;
    const action = button && button.hasAttribute('formaction') ? button.formAction : event.target.action;
    if (elsewhere(action)) event.preventDefault();
  }, true);
  const submit = HTMLFormElement.prototype.submit;
  HTMLFormElement.prototype.submit = function () {
    if (!elsewhere(this.action)) submit.call(this);
  };
})();
