"""The host page: a browser page that loads packages' UI modules and surfaces the way the host does.

``vendor`` builds the host's shared modules (React as ESM, the development ``@neuralis/client``),
``model`` judges packages and lays out their surfaces, ``page`` renders the HTML, ``site`` writes a
static copy; ``neuralis-build dev`` serves the same page live.
"""
