el => document.getAnimations().some((animation) => animation.playState === "running"
  && animation.effect && animation.effect.target instanceof Element
  && animation.effect.target.contains(el))
