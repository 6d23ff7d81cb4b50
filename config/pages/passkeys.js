// Passkeys on the sign-in page: the hosted pages' one script. Without it (or without WebAuthn) the button stays
// hidden and everything else works. It speaks the JSON wire under /ui/passkeys (docs/passkeys.md).
(function () {
  "use strict";
  var button = document.getElementById("passkey-sign-in");
  var form = document.querySelector('form[action="/ui/sign-in"]');
  if (!button || !form || !window.PublicKeyCredential || !navigator.credentials) return;
  var csrf = form.querySelector('input[name="csrf"]').value;
  var interaction = form.querySelector('input[name="interaction"]').value;
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
  function assertionJSON(credential) {
    if (credential.toJSON) return credential.toJSON();
    var r = credential.response;
    return { id: credential.id, rawId: b64(credential.rawId), type: credential.type, clientExtensionResults: {},
             response: { clientDataJSON: b64(r.clientDataJSON), authenticatorData: b64(r.authenticatorData),
                         signature: b64(r.signature), userHandle: r.userHandle ? b64(r.userHandle) : null } };
  }
  function post(path, body) {
    return fetch(path, { method: "POST", credentials: "same-origin", body: JSON.stringify(body || {}),
                         headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf, "X-Latchkey-Interaction": interaction } })
      .then(function (r) {
        return r.json().then(function (answer) {
          if (!r.ok) throw new Error(answer.error_description || answer.error);
          return answer;
        });
      });
  }

  var pending = null;
  function signIn(mediation) {
    if (pending) pending.abort();
    var controller = new AbortController();
    pending = controller;
    return post("/ui/passkeys/authentication/options")
      .then(function (options) {
        return navigator.credentials.get({ publicKey: requestOptions(options), mediation: mediation, signal: controller.signal });
      })
      .then(function (credential) { return post("/ui/passkeys/authentication", assertionJSON(credential)); })
      .then(function (answer) { window.location.assign(answer.location); })
      .catch(function (error) {
        if (error.name === "AbortError" || controller.signal.aborted) return;
        status.textContent = error.message;
        status.hidden = false;
      });
  }

  button.hidden = false;
  button.addEventListener("click", function () { signIn("optional"); });
  // The address field's autofill offers passkeys (autocomplete="username webauthn").
  if (PublicKeyCredential.isConditionalMediationAvailable) {
    PublicKeyCredential.isConditionalMediationAvailable().then(function (available) { if (available) signIn("conditional"); });
  }
})();
