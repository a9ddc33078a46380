"""The web table: ``play.web.server`` and its static page."""
