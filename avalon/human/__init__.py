"""Human data: pose tracks of headsets and motion capture (:mod:`avalon.human.pose_tracks`), turned
into ``vr`` actions (:mod:`avalon.human.pose_actions`) and recorded as episodes
(:mod:`avalon.human.pose_import`), and the human reference scores of replayed episodes
(:mod:`avalon.human.scores`). The episodes are ordinary episode files (:mod:`avalon.episodes`)."""
