// The two reading pages, in plain Spanish: how to play (the rule book told simply) and what
// the casino is. Static HTML strings; nothing here comes from players.

import { t } from "../lib/i18n.js";

export const COMO_SE_JUEGA = `
<h2>Cómo se juega</h2>
<p>Se juega con una baraja francesa de 52 cartas, entre dos. Cada carta vale su número;
la J vale 11, la Q vale 12 y la K vale 13. <strong>El as vale 1 o 14</strong>: cuando lo
juegas para llevarte algo, se lleva los otros ases y lo que sume 14; dentro de una suma
vale 1.</p>

<h3>El reparto</h3>
<p>Al empezar la mano se dan 4 cartas a cada uno y se ponen 4 boca arriba en la mesa.
Juegan por turnos, una carta cada vez. Cuando los dos se quedan sin cartas, se reparten
4 más a cada uno (a la mesa ya no). Una mano tiene seis repartos. En cada mano cambia
quien reparte, y empieza a jugar el otro. En la primera mano empieza quien abrió la
mesa.</p>

<h3>Llevarte</h3>
<p>Juegas una carta y te llevas de la mesa:</p>
<ul>
  <li>las cartas del mismo número (un 9 se lleva los 9);</li>
  <li>los montones que valen lo mismo que tu carta;</li>
  <li>grupos de dos o más cartas sueltas que sumen lo que vale tu carta.</li>
</ul>
<p>Las cartas iguales y los montones de ese valor <strong>siempre</strong> te los
tienes que llevar; las sumas las escoges tú. El botón <em>Llevarte</em> se lleva todo lo
que puede; <em>Llevarte solo</em> se lleva las iguales y los montones, y deja las sumas en la
mesa. También puedes tocar tú las cartas de la mesa que quieres.</p>
<p>Ejemplo: en la mesa hay 9♦ 5♥ 4♣ 6♦ 3♠ y juegas el 9♠. Te puedes llevar las cinco
(9♦, 5+4 y 6+3). Lo que no puedes es llevarte el 5 y el 4 y dejar el 9♦.</p>
<p><strong>Limpia</strong>: si después de llevarte algo la mesa queda vacía, ganas una
limpia.</p>

<h3>Construir un montón</h3>
<p>Pones una carta sobre cartas de la mesa para formar un montón que luego te llevas con
otra carta de tu mano. Ejemplo: tienes 3♣ y 8♥, en la mesa hay un 5♦: pones el 3 sobre el
5 y haces un montón de 8, que te llevas en tu próximo turno con el 8♥.</p>
<ul>
  <li>Solo puedes construir un montón si te queda en la mano una carta de ese valor
  (para 14, un as). Nunca puedes dejar tu montón sin la carta que se lo lleva.</li>
  <li><strong>Subir</strong>: puedes poner tu carta sobre un montón sencillo del otro
  jugador; el valor sube (hasta 14) y el montón pasa a ser tuyo. Tu propio montón no lo
  puedes subir.</li>
  <li><strong>Montón doble</strong>: si juntas dos o más grupos que valen lo mismo (por
  ejemplo 5+3 y otro 8), haces un montón doble. Ese ya no se sube ni se parte: se lo lleva
  entero una carta de su valor, o se junta entero en otro montón doble del mismo valor.</li>
</ul>

<h3>Echar a la mesa</h3>
<p>Si no te llevas nada ni construyes, echas tu carta a la mesa. No puedes echar si
tienes un montón en la mesa, ni echar una carta del mismo número que una que ya está
suelta en la mesa (esa te la tienes que llevar).</p>

<h3>Fin de la mano</h3>
<p>Cuando se juega la última carta, lo que quede en la mesa se lo lleva el último que se
llevó algo (eso no cuenta como limpia). Si en toda la mano nadie se llevó nada, es para
quien repartió.</p>

<h3>Los puntos</h3>
<table class="points">
  <tr><th scope="row">Más cartas (más de 26)</th><td>3</td></tr>
  <tr><th scope="row">Más picas (7 o más)</th><td>1</td></tr>
  <tr><th scope="row">El 10♦ (diez de diamantes)</th><td>2</td></tr>
  <tr><th scope="row">El 2♠ (dos de picas)</th><td>1</td></tr>
  <tr><th scope="row">Cada as (en este orden: ♠ ♣ ♥ ♦)</th><td>1</td></tr>
  <tr><th scope="row">Cada limpia de diferencia</th><td>1</td></tr>
</table>
<p>Las limpias de uno cancelan las del otro. Quien empieza una mano con 18 puntos o más
solo cuenta cartas, picas y el 10♦ (sus limpias sí cancelan las del otro). <strong>Gana quien llegue primero a 21.</strong>
Los puntos se cuentan en el orden de la tabla, y el primero que llega a 21 gana.</p>

<h3>Ayudas</h3>
<p>Con las ayudas puestas, las cartas de tu mano que se pueden llevar algo tienen un
borde verde, y al construir te enseñamos los montones que puedes hacer.</p>
`;

export const SOBRE_EL_CASINO = `
<h2>Sobre el casino</h2>
<p>El casino es un juego de cartas de toda la vida en la República Dominicana. Se juega en
la casa, en la galería o en el patio, entre abuelos, tíos, primos y vecinos, con una
baraja francesa y mucha conversación.</p>
<p>Es un juego de atención y de memoria: mirar la mesa, sumar rápido, acordarse de qué
cartas ya salieron y adivinar qué montón va a hacer el otro. Los más viejos enseñan a los
más chiquitos, y muchas veces los chiquitos terminan ganando.</p>
<p>Aquí lo puedes jugar contra la computadora, en <em>Fácil</em> para aprender, en
<em>Normal</em> para un buen reto o en <em>Difícil</em> si quieres medirte con el mejor de
la familia, o con un familiar que esté en otra ciudad o en otro país: le mandas el enlace
por WhatsApp y se sientan a la misma mesa.</p>
<p><strong>Es solo para divertirse: aquí no se apuesta dinero.</strong></p>
<p>Las reglas que usamos están en <a href="#como-se-juega" data-go="ayuda">Cómo se
juega</a>. En cada casa se juega un poquito distinto; estas son las de esta mesa.</p>
`;

/** The computer's level as a player reads it ("Fácil", "Easy"). */
export function levelName(level) {
  return ["facil", "normal", "dificil"].includes(level) ? t(`level.${level}`) : level;
}
