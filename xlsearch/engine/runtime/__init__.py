"""What the engine runs on: CPU thread policy, data/config folders, settings, atomic files."""
