"""The app's screens, one per mode (imported lazily by the app)."""
