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
            if (!r.ok) throw new Error(answer.error_description || answer.error);
            return answer;
          });
        });
    };
  }
  function show(error) {
    if (error.name === "AbortError" || error.name === "NotAllowedError" && !error.message) return;
    status.textContent = error.message;
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
      return post("/ui/passkeys/authentication/options")
        .then(function (options) {
          return navigator.credentials.get({ publicKey: requestOptions(options), mediation: mediation, signal: controller.signal });
        })
        .then(function (credential) { return post("/ui/passkeys/authentication", credentialJSON(credential)); })
        .then(function (answer) { window.location.assign(answer.location); })
        .catch(function (error) { if (!controller.signal.aborted) show(error); });
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
      add("/ui/passkeys/registration/options")
        .then(function (options) { return navigator.credentials.create({ publicKey: creationOptions(options) }); })
        .then(function (credential) { return add("/ui/passkeys/registration", credentialJSON(credential)); })
        .then(function () { window.location.assign(addButton.getAttribute("data-continue")); })
        .catch(show);
    });
  }
})();
