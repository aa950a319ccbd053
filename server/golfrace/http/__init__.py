"""The layer http: the app factory, the websocket endpoint, the error mapping."""
