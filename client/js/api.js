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

// QR codes are asked for by POST, the path in the body: a rejoin link is a secret, and a URL
// (query string included) ends up in logs. Each path's image is fetched once per page load.
const qrImages = new Map();

export function qrObjectUrl(path) {
  if (!qrImages.has(path)) {
    const image = fetch("/api/qr", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ text: path }),
      credentials: "same-origin",
    }).then(async (response) => {
      if (!response.ok) throw new ApiError("qr", "No se pudo hacer el código QR.", response.status);
      return URL.createObjectURL(await response.blob());
    });
    image.catch(() => qrImages.delete(path));
    qrImages.set(path, image);
  }
  return qrImages.get(path);
}
