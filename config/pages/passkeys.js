// Passkeys at the hosted pages: their one script. Without it (or without WebAuthn) its buttons stay hidden and
// everything else works. It speaks the JSON wire under /ui/passkeys (docs/passkeys.md): signing in on the sign-in
// page, and adding a passkey on the page that offers one after a sign-in.
(function () {
  "use strict";
  if (!window.PublicKeyCredential || !navigator.credentials || !window.fetch) return;
  var status = document.getElementById("passkey-status");

  function b64(buffer) {
    var bytes = new Uint8Array(buffer), text = "";
    for (var i = 0; i < bytes.length; i++) text += String.fromCharCode(bytes[i]);
    return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  function unb64(text) {
    var bare = atob(text.replace(/-/g, "+").replace(/_/g, "/")), bytes = new Uint8Array(bare.length);
    for (var i = 0; i < bare.length; i++) bytes[i] = bare.charCodeAt(i);
    return bytes.buffer;
  }
  // Browsers without WebAuthn Level 3's JSON helpers get the same conversion by hand.
  function requestOptions(json) {
    if (PublicKeyCredential.parseRequestOptionsFromJSON) return PublicKeyCredential.parseRequestOptionsFromJSON(json);
    json.challenge = unb64(json.challenge);
    json.allowCredentials = (json.allowCredentials || []).map(function (c) { return { type: c.type, id: unb64(c.id) }; });
    return json;
  }
  function creationOptions(json) {
    if (PublicKeyCredential.parseCreationOptionsFromJSON) return PublicKeyCredential.parseCreationOptionsFromJSON(json);
    json.challenge = unb64(json.challenge);
    json.user.id = unb64(json.user.id);
    json.excludeCredentials = (json.excludeCredentials || []).map(function (c) { return { type: c.type, id: unb64(c.id) }; });
    return json;
  }
  function credentialJSON(credential) {
    if (credential.toJSON) return credential.toJSON();
    var r = credential.response, response = { clientDataJSON: b64(r.clientDataJSON) };
    if (r.attestationObject) response.attestationObject = b64(r.attestationObject);
    if (r.authenticatorData) response.authenticatorData = b64(r.authenticatorData);
    if (r.signature) response.signature = b64(r.signature);
    if (r.userHandle) response.userHandle = b64(r.userHandle);
    return { id: credential.id, rawId: b64(credential.rawId), type: credential.type, clientExtensionResults: {}, response: response };
  }
  function poster(csrf, interaction) {
    return function (path, body) {
      var headers = { "Content-Type": "application/json", "X-CSRF-Token": csrf };
      if (interaction) headers["X-Latchkey-Interaction"] = interaction;
      return fetch(path, { method: "POST", credentials: "same-origin", headers: headers, body: JSON.stringify(body || {}) })
        .then(function (r) {
          return r.json().then(function (answer) {
            if (!r.ok) { var refused = new Error(answer.error_description || answer.error); refused.ours = true; throw refused; }
            return answer;
          });
        });
    };
  }
  // A button rests (and says so to assistive technology) while its prompt is open: one prompt at a time.
  function busy(button, on) {
    button.disabled = on;
    button.setAttribute("aria-busy", on ? "true" : "false");
    if (on) status.hidden = true;
  }
  // The page's own words, never the browser's (which quote the W3C). A cancelled prompt and a refused user
  // verification are both NotAllowedError (the browser does not say which, by design): adding, that is "not now" and
  // shows nothing; signing in, it says what to do next.
  function show(error, adding) {
    var words;
    if (error.name === "AbortError" || (adding && error.name === "NotAllowedError")) return;
    if (error.ours) words = error.message;
    else if (error.name === "NotAllowedError") words = status.getAttribute("data-not-used");
    else if (error.name === "InvalidStateError") words = status.getAttribute("data-already");
    else words = status.getAttribute("data-failed");
    status.textContent = words;
    status.hidden = false;
  }

  // The sign-in page (the button, and the address field's autofill: autocomplete="username webauthn"), and the
  // second-factor page (the button: the account's own passkey passes the second step).
  var signInButton = document.getElementById("passkey-sign-in");
  var form = document.querySelector('form[action="/ui/sign-in"]');
  var secondStep = document.getElementById("passkey-interaction");
  if (signInButton && (form || secondStep)) {
    var post = form ? poster(form.querySelector('input[name="csrf"]').value, form.querySelector('input[name="interaction"]').value)
                    : poster(document.getElementById("passkey-csrf").value, secondStep.value);
    var pending = null;
    var signIn = function (mediation) {
      if (pending) pending.abort();
      var controller = new AbortController();
      pending = controller;
      // The button rests while its prompt is open, so a second click does not start a second one.
      if (mediation !== "conditional") busy(signInButton, true);
      return post("/ui/passkeys/authentication/options")
        .then(function (options) {
          return navigator.credentials.get({ publicKey: requestOptions(options), mediation: mediation, signal: controller.signal });
        })
        .then(function (credential) { return post("/ui/passkeys/authentication", credentialJSON(credential)); })
        .then(function (answer) { window.location.assign(answer.location); })
        // Autofill (conditional) waits quietly on load: what it meets is never shown.
        .catch(function (error) { if (!controller.signal.aborted && mediation !== "conditional") show(error, false); })
        .then(function () { if (mediation !== "conditional") busy(signInButton, false); });
    };
    signInButton.hidden = false;
    signInButton.addEventListener("click", function () { signIn("optional"); });
    var address = form && form.querySelector('input[name="email"]');
    var autofill = address && (address.getAttribute("autocomplete") || "").split(" ").indexOf("webauthn") >= 0;
    if (autofill && PublicKeyCredential.isConditionalMediationAvailable) {
      PublicKeyCredential.isConditionalMediationAvailable().then(function (available) { if (available) signIn("conditional"); });
    }
  }

  // The offer after a sign-in: add a passkey to the account just signed in, then go on.
  var addButton = document.getElementById("passkey-add");
  if (addButton) {
    var add = poster(document.getElementById("passkey-csrf").value, null);
    addButton.hidden = false;
    addButton.addEventListener("click", function () {
      busy(addButton, true);
      add("/ui/passkeys/registration/options")
        .then(function (options) { return navigator.credentials.create({ publicKey: creationOptions(options) }); })
        .then(function (credential) { return add("/ui/passkeys/registration", credentialJSON(credential)); })
        .then(function () { window.location.assign(addButton.getAttribute("data-continue")); })
        .catch(function (error) { show(error, true); busy(addButton, false); });
    });
  }
})();
