"""`neuralis-build dev`: serve the host page of one package on 127.0.0.1 and keep it live while it changes."""
