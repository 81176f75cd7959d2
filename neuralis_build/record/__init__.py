"""The build record beside a built UI module, and the host's verdict on it: read by check, image, pack and dev."""
