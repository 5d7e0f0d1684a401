// HTTP calls to the game server. Every error becomes an ApiError carrying the server's
// Spanish message (or a friendly one when the network itself failed).

export class ApiError extends Error {
  constructor(code, message, status) {
    super(message);
    this.code = code;
    this.status = status;
  }
}

async function call(method, path, body) {
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "same-origin",
    });
  } catch {
    throw new ApiError("network", "No hay conexión con el servidor. Revisa tu internet y prueba otra vez.", 0);
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const error = (data && data.error) || {};
    throw new ApiError(
      error.code || "http_" + response.status,
      error.message || "Algo salió mal en el servidor. Prueba otra vez en un momento.",
      response.status,
    );
  }
  return data;
}

export function createRoom(body) {
  return call("POST", "/api/rooms", body);
}

export function joinRoom(invite, name) {
  return call("POST", "/api/join", { invite, name });
}

export function newRejoinCode(token) {
  return call("POST", "/api/rejoin-codes", { token });
}

export function rejoin(code) {
  return call("POST", "/api/rejoin", { code });
}

export function qrUrl(text) {
  return "/api/qr.svg?text=" + encodeURIComponent(text);
}
