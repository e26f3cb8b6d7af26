/// The single-threaded sd-event loop and systemd notification.
