"""Human play: ``avalon play`` opens a window in which a person plays a world with keys and mouse
(:mod:`avalon.app.play.controls`), and records the episode as human data (:mod:`avalon.app.play.session`)."""
